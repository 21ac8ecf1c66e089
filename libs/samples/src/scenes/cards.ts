import { between, linearGradient, n, type Rng, svgDocument, text } from './svg';

/** A rectangle in a scene's pixels, with the scene's size: a click zone is drawn from it. */
export interface SceneRect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly sceneWidth: number;
  readonly sceneHeight: number;
}

/** A square full-time score card, as sports desks post after a match. */
export function scoreCard(r: Rng): string {
  const size = 1080;
  const body = [
    `<rect width="${size}" height="${size}" fill="url(#bg)"/>`,
    ...Array.from(
      { length: 9 },
      (_, i) =>
        `<rect x="${i * 160 - 200}" y="-200" width="60" height="1600" fill="#ffffff" opacity="0.035" transform="rotate(30 540 540)"/>`,
    ),
    text(540, 110, 'CITY LEAGUE · MATCHDAY 12', { size: 32, fill: '#9fb3c8', anchor: 'middle', spacing: 4 }),
    '<rect x="430" y="150" width="220" height="56" rx="28" fill="#e63946"/>',
    text(540, 189, 'FULL TIME', { size: 28, fill: '#ffffff', weight: 'bold', anchor: 'middle', spacing: 2 }),
  ];
  const teams = [
    { x: 290, name: 'Harbour City', short: 'HC', colour: '#1d4e89', scorers: "Okafor 61', 88' · Lind 74'" },
    { x: 790, name: 'Riverside', short: 'RV', colour: '#f4a261', scorers: "Berg 12'" },
  ];
  for (const team of teams) {
    body.push(
      `<circle cx="${team.x}" cy="360" r="112" fill="${team.colour}" stroke="#ffffff" stroke-width="8"/>`,
      `<circle cx="${team.x}" cy="360" r="${n(between(r, 70, 84))}" fill="none" stroke="#ffffff" stroke-width="3" opacity="0.5"/>`,
      text(team.x, 388, team.short, { size: 78, fill: '#ffffff', weight: 'bold', anchor: 'middle' }),
      text(team.x, 530, team.name, { size: 42, fill: '#ffffff', weight: 'bold', anchor: 'middle' }),
      text(team.x, 850, team.scorers, { size: 28, fill: '#cfd8e3', anchor: 'middle' }),
    );
  }
  body.push(
    text(540, 760, '3 – 1', { size: 200, fill: '#ffffff', weight: 'bold', anchor: 'middle' }),
    text(540, 1010, 'Harbour Stadium · attendance 18,402', { size: 28, fill: '#9fb3c8', anchor: 'middle' }),
  );
  const defs = [
    linearGradient(
      'bg',
      [
        [0, '#0d1b2a'],
        [1, '#1b3a5c'],
      ],
      { x2: 1, y2: 1 },
    ),
  ];
  return svgDocument(size, size, defs, body);
}

const HEADLINE = { width: 1200, height: 630 } as const;
const at = (x: number, y: number, width: number, height: number): SceneRect => ({
  x,
  y,
  width,
  height,
  sceneWidth: HEADLINE.width,
  sceneHeight: HEADLINE.height,
});

/** Where the tram story card's links are drawn: its click zones. */
export const TRAM_CARD_LINKS = {
  story: at(596, 70, 580, 370),
  timetable: at(610, 480, 230, 64),
  routeMap: at(860, 480, 230, 64),
} as const;

/** A news card (the size link previews use): a tram illustration, a headline and two buttons. */
export function tramHeadline(r: Rng): string {
  const { width: w, height: h } = HEADLINE;
  const body = [
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    ...Array.from({ length: 7 }, (_, i) => {
      const bh = between(r, 80, 200);
      return `<rect x="${i * 84 - 10}" y="${n(440 - bh)}" width="76" height="${n(bh)}" fill="#a3b1c6" opacity="0.7"/>`;
    }),
    '<rect y="440" width="560" height="190" fill="#8d99ae"/>',
    '<path d="M0 150 L560 150" stroke="#333" stroke-width="2"/>',
    '<path d="M260 250 L300 150 L340 250" stroke="#333" stroke-width="4" fill="none"/>',
    '<rect x="60" y="250" width="460" height="170" rx="26" fill="#c1121f"/>',
    '<rect x="60" y="380" width="460" height="12" fill="#f1faee" opacity="0.8"/>',
    ...Array.from(
      { length: 5 },
      (_, i) => `<rect x="${90 + i * 84}" y="275" width="66" height="62" rx="8" fill="#bde0fe"/>`,
    ),
    '<rect x="470" y="275" width="34" height="100" rx="6" fill="#bde0fe"/>',
    '<rect y="440" width="560" height="10" fill="#495057"/><rect y="470" width="560" height="10" fill="#495057"/>',
    ...Array.from({ length: 14 }, (_, i) => `<rect x="${i * 42}" y="436" width="14" height="50" fill="#6c757d"/>`),
    `<rect x="560" width="${w - 560}" height="${h}" fill="#ffffff"/>`,
    text(610, 120, 'TRANSPORT', { size: 24, fill: '#c1121f', weight: 'bold', spacing: 3 }),
    text(610, 200, 'Tram line 4', { size: 56, fill: '#111111', weight: 'bold' }),
    text(610, 262, 'reopens on', { size: 56, fill: '#111111', weight: 'bold' }),
    text(610, 324, 'Monday', { size: 56, fill: '#111111', weight: 'bold' }),
    text(610, 390, 'Service resumes after six weeks of track', { size: 24, fill: '#555555' }),
    text(610, 422, 'work; the first tram leaves at 05:40.', { size: 24, fill: '#555555' }),
  ];
  const { timetable: t, routeMap: m } = TRAM_CARD_LINKS;
  body.push(
    `<rect x="${t.x}" y="${t.y}" width="${t.width}" height="${t.height}" rx="10" fill="#c1121f"/>`,
    text(t.x + t.width / 2, t.y + 42, 'Timetable', { size: 26, fill: '#ffffff', weight: 'bold', anchor: 'middle' }),
    `<rect x="${m.x + 2}" y="${m.y + 2}" width="${m.width - 4}" height="${m.height - 4}" rx="10" fill="none" stroke="#c1121f" stroke-width="4"/>`,
    text(m.x + m.width / 2, m.y + 42, 'Route map', { size: 26, fill: '#c1121f', weight: 'bold', anchor: 'middle' }),
  );
  const defs = [
    linearGradient('sky', [
      [0, '#cfe8fc'],
      [1, '#f8f9fa'],
    ]),
  ];
  return svgDocument(w, h, defs, body);
}

/** A breaking-news frame: a street with a new green cycle lane, a dark band and the headline. */
export function cycleLanesHeadline(r: Rng): string {
  const [w, h, vx, vy] = [1280, 720, 640, 300];
  const body = [
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    `<path d="M0 0 L${vx - 60} ${vy - 40} L${vx - 60} ${vy + 20} L0 ${h} Z" fill="#8d6e63"/>`,
    `<path d="M${w} 0 L${vx + 60} ${vy - 40} L${vx + 60} ${vy + 20} L${w} ${h} Z" fill="#a1887f"/>`,
  ];
  for (let i = 0; i < 6; i++) {
    const t = i / 6;
    const top = (1 - t) * 40 + t * (vy - 30);
    body.push(
      `<rect x="${n(30 + t * (vx - 120))}" y="${n(top + 20)}" width="${n(60 * (1 - t) + 6)}" height="${n(90 * (1 - t) + 8)}" fill="#ffe8a3" opacity="${n(between(r, 0.5, 0.9))}"/>`,
    );
  }
  body.push(
    `<path d="M${vx - 60} ${vy + 20} L${vx + 60} ${vy + 20} L${w} ${h} L0 ${h} Z" fill="#495057"/>`,
    `<path d="M${vx + 30} ${vy + 20} L${vx + 60} ${vy + 20} L${w} ${h} L${w - 330} ${h} Z" fill="#2a9d8f"/>`,
    `<path d="M${vx} ${vy + 20} L${vx + 4} ${vy + 20} L${w / 2 + 20} ${h} L${w / 2 - 20} ${h} Z" fill="#f8f9fa" stroke-dasharray="30 30"/>`,
    '<g stroke="#ffffff" stroke-width="7" fill="none" opacity="0.9"><circle cx="1010" cy="560" r="34"/><circle cx="1110" cy="560" r="34"/>' +
      '<path d="M1010 560 L1045 510 L1090 510 L1110 560 M1045 510 L1060 560 L1090 510"/></g>',
    `<rect y="400" width="${w}" height="${h - 400}" fill="url(#shade)"/>`,
    '<rect x="60" y="478" width="170" height="44" fill="#e63946"/>',
    text(145, 509, 'BREAKING', { size: 24, fill: '#ffffff', weight: 'bold', anchor: 'middle', spacing: 2 }),
    text(60, 590, 'Council approves new cycle lanes', { size: 52, fill: '#ffffff', weight: 'bold' }),
    text(60, 640, '12 km of protected lanes by spring · vote passed 31–14', { size: 26, fill: '#dee2e6' }),
  );
  const defs = [
    linearGradient('sky', [
      [0, '#adb5bd'],
      [1, '#e9ecef'],
    ]),
    `<linearGradient id="shade" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="0.45" stop-color="#000" stop-opacity="0.7"/><stop offset="1" stop-color="#000" stop-opacity="0.9"/></linearGradient>`,
  ];
  return svgDocument(w, h, defs, body);
}

/** What an unattended camera sends when its feed is down: colour bars and "no signal". */
export function testCard(_r: Rng): string {
  const [w, h] = [1280, 720];
  const bars = ['#c0c0c0', '#c0c000', '#00c0c0', '#00c000', '#c000c0', '#c00000', '#0000c0'];
  const step = w / bars.length;
  const body = [
    ...bars.map((c, i) => `<rect x="${n(i * step)}" width="${n(step + 1)}" height="480" fill="${c}"/>`),
    ...[...bars]
      .reverse()
      .map((c, i) => `<rect x="${n(i * step)}" y="480" width="${n(step + 1)}" height="60" fill="${c}"/>`),
    `<rect y="540" width="${w}" height="180" fill="#101010"/>`,
    '<rect x="0" y="540" width="230" height="180" fill="#00214c"/><rect x="230" y="540" width="230" height="180" fill="#ffffff"/>',
    '<rect x="460" y="540" width="230" height="180" fill="#32006a"/>',
    '<rect x="340" y="250" width="600" height="140" fill="#000000"/>',
    text(640, 312, 'ROOF CAM 3', { size: 40, fill: '#ffffff', weight: 'bold', anchor: 'middle', spacing: 4 }),
    text(640, 362, 'NO SIGNAL', { size: 32, fill: '#ffffff', anchor: 'middle', spacing: 8 }),
  ];
  return svgDocument(w, h, [], body);
}

/** A failed render: one flat grey, nothing else (what a `blank` policy rule rejects). */
export function blankFrame(_r: Rng): string {
  return svgDocument(1280, 720, [], ['<rect width="1280" height="720" fill="#7f7f7f"/>']);
}

/** Roof camera 3 working again: rooftops and chimneys under a morning sky. */
export function roofView(r: Rng): string {
  const [w, h] = [1280, 720];
  const roofs: string[] = [];
  for (let x = -40; x < w; x += between(r, 120, 220)) {
    const top = between(r, 330, 520);
    const width = between(r, 140, 260);
    const shade = Math.round(between(r, 60, 130));
    roofs.push(
      `<polygon points="${n(x)},${h} ${n(x)},${n(top + 40)} ${n(x + width / 2)},${n(top)} ${n(x + width)},${n(top + 40)} ${n(x + width)},${h}" fill="rgb(${shade + 60},${shade},${shade - 20})"/>`,
      `<rect x="${n(x + width * 0.7)}" y="${n(top - 30)}" width="18" height="50" fill="#3a2a22"/>`,
    );
  }
  const body = [
    '<rect width="1280" height="720" fill="url(#sky)"/>',
    `<circle cx="${n(between(r, 200, 1080))}" cy="160" r="54" fill="#fff4c8"/>`,
    ...roofs,
  ];
  return svgDocument(
    w,
    h,
    [
      linearGradient('sky', [
        [0, '#7fb3e0'],
        [1, '#f6dcae'],
      ]),
    ],
    body,
  );
}
