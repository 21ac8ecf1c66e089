import { between, n, type Rng, svgDocument, text } from './svg';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** A bar chart of a week's rainfall, as a weather desk posts it. */
export function rainfallChart(_r: Rng): string {
  const [w, h] = [1280, 720];
  const plot = { left: 140, right: 1200, top: 190, bottom: 620 };
  const values = [3, 5, 18, 9, 2, 0, 5];
  const max = 20;
  const y = (v: number) => plot.bottom - (v / max) * (plot.bottom - plot.top);
  const body = [
    `<rect width="${w}" height="${h}" fill="#fbfcfe"/>`,
    text(80, 90, 'Rainfall this week', { size: 44, fill: '#1f2937', weight: 'bold' }),
    text(80, 132, 'Millimetres per day at the city weather station · 42 mm in all', { size: 24, fill: '#6b7280' }),
  ];
  for (let v = 0; v <= max; v += 5) {
    body.push(
      `<rect x="${plot.left}" y="${n(y(v))}" width="${plot.right - plot.left}" height="2" fill="#e5e7eb"/>`,
      text(plot.left - 18, y(v) + 8, String(v), { size: 22, fill: '#6b7280', anchor: 'end' }),
    );
  }
  const slot = (plot.right - plot.left) / values.length;
  values.forEach((v, i) => {
    const x = plot.left + i * slot + slot * 0.18;
    const bw = slot * 0.64;
    const peak = v === Math.max(...values);
    body.push(
      `<rect x="${n(x)}" y="${n(y(v))}" width="${n(bw)}" height="${n(plot.bottom - y(v))}" rx="6" fill="${peak ? '#1d4ed8' : '#60a5fa'}"/>`,
      text(x + bw / 2, y(v) - 14, `${v}`, { size: 24, fill: '#1f2937', weight: 'bold', anchor: 'middle' }),
      text(x + bw / 2, plot.bottom + 40, DAYS[i]!, { size: 24, fill: '#374151', anchor: 'middle' }),
    );
  });
  body.push(`<rect x="${plot.left}" y="${plot.bottom}" width="${plot.right - plot.left}" height="3" fill="#9ca3af"/>`);
  return svgDocument(w, h, [], body);
}

/** Travel time on a ring road over a morning, against the week before: a line chart, dark theme. */
export function trafficChart(r: Rng): string {
  const [w, h] = [1280, 720];
  const plot = { left: 130, right: 1200, top: 190, bottom: 600 };
  const minutes = (peakAt: number, height: number, jitter: number) =>
    Array.from(
      { length: 25 },
      (_, i) => 14 + height * Math.exp(-(((i - peakAt) / 4) ** 2)) + between(r, -jitter, jitter),
    );
  const today = minutes(13.5, 20, 1.2);
  const lastWeek = minutes(11.5, 16, 0.6);
  const x = (i: number) => plot.left + (i / 24) * (plot.right - plot.left);
  const y = (v: number) => plot.bottom - ((v - 10) / 30) * (plot.bottom - plot.top);
  const line = (values: number[]) => values.map((v, i) => `${i ? 'L' : 'M'}${n(x(i))} ${n(y(v))}`).join(' ');
  const body = [
    `<rect width="${w}" height="${h}" fill="#111827"/>`,
    text(80, 90, 'Ring road travel time, Tuesday morning', { size: 40, fill: '#f9fafb', weight: 'bold' }),
    text(80, 130, 'Minutes from the north junction to the harbour', { size: 24, fill: '#9ca3af' }),
  ];
  for (let v = 10; v <= 40; v += 10) {
    body.push(
      `<rect x="${plot.left}" y="${n(y(v))}" width="${plot.right - plot.left}" height="1" fill="#374151"/>`,
      text(plot.left - 16, y(v) + 8, String(v), { size: 22, fill: '#9ca3af', anchor: 'end' }),
    );
  }
  for (let hour = 6; hour <= 10; hour++) {
    body.push(
      text(x((hour - 6) * 6), plot.bottom + 40, `${String(hour).padStart(2, '0')}:00`, {
        size: 22,
        fill: '#9ca3af',
        anchor: 'middle',
      }),
    );
  }
  const peak = today.indexOf(Math.max(...today));
  body.push(
    `<path d="${line(today)} L${n(x(24))} ${plot.bottom} L${n(x(0))} ${plot.bottom} Z" fill="url(#area)"/>`,
    `<path d="${line(lastWeek)}" stroke="#6b7280" stroke-width="3" stroke-dasharray="10 8" fill="none"/>`,
    `<path d="${line(today)}" stroke="#f59e0b" stroke-width="5" fill="none" stroke-linejoin="round"/>`,
    `<circle cx="${n(x(peak))}" cy="${n(y(today[peak]!))}" r="9" fill="#111827" stroke="#f59e0b" stroke-width="4"/>`,
    text(x(peak) + 18, y(today[peak]!) - 14, `Peak ${Math.round(today[peak]!)} min`, {
      size: 24,
      fill: '#fbbf24',
      weight: 'bold',
    }),
    '<rect x="880" y="154" width="28" height="5" fill="#f59e0b"/>',
    text(918, 164, 'This Tuesday', { size: 20, fill: '#e5e7eb' }),
    '<rect x="1070" y="154" width="28" height="4" fill="#6b7280"/>',
    text(1108, 164, 'Last Tuesday', { size: 20, fill: '#e5e7eb' }),
  );
  const defs = [
    `<linearGradient id="area" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f59e0b" stop-opacity="0.45"/><stop offset="1" stop-color="#f59e0b" stop-opacity="0"/></linearGradient>`,
  ];
  return svgDocument(w, h, defs, body);
}

/** A smooth closed blob around (cx, cy): a piece of coast on a map. */
function blob(r: Rng, cx: number, cy: number, radius: number): string {
  const points = Array.from({ length: 12 }, (_, i) => {
    const angle = (i / 12) * Math.PI * 2;
    const d = radius * between(r, 0.7, 1.2);
    return [cx + Math.cos(angle) * d * 1.4, cy + Math.sin(angle) * d] as const;
  });
  const mid = (i: number) => {
    const a = points[i % 12]!;
    const b = points[(i + 1) % 12]!;
    return `${n((a[0] + b[0]) / 2)} ${n((a[1] + b[1]) / 2)}`;
  };
  const curve = points.map((p, i) => `Q${n(p[0])} ${n(p[1])} ${mid(i)}`).join(' ');
  return `<path d="M${mid(11)} ${curve} Z" fill="#ebe5cc" stroke="#b8ae8a" stroke-width="3"/>`;
}

type Curve = readonly (readonly [number, number])[];
const bezierPath = (c: Curve) =>
  `M${c[0]![0]} ${c[0]![1]} C${c
    .slice(1)
    .map(([x, y]) => `${x} ${y}`)
    .join(' ')}`;

/** The point at `t` (0–1) of a cubic Bézier curve. */
function bezierAt(c: Curve, t: number): [number, number] {
  const u = 1 - t;
  const k = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t];
  return [0, 1].map((axis) => c.reduce((sum, p, i) => sum + k[i]! * p[axis]!, 0)) as [number, number];
}

/** A weather map: coasts, isobars round a low, a cold and a warm front, cities with temperatures. */
export function stormMap(r: Rng): string {
  const [w, h, lowX, lowY] = [1280, 720, 430, 300];
  const body = [`<rect width="${w}" height="${h}" fill="#cde3f2"/>`, blob(r, 330, 520, 230), blob(r, 1000, 260, 210)];
  for (let i = 1; i <= 6; i++) {
    body.push(
      `<ellipse cx="${lowX}" cy="${lowY}" rx="${i * 70}" ry="${i * 48}" fill="none" stroke="#5d7290" stroke-width="2" opacity="0.7" transform="rotate(-18 ${lowX} ${lowY})"/>`,
    );
  }
  // Fronts as cubic Béziers, with their symbols placed on the curve itself.
  const cold = [
    [lowX, lowY],
    [330, 420],
    [260, 520],
    [170, 700],
  ] as const;
  const warm = [
    [lowX, lowY],
    [560, 320],
    [680, 380],
    [820, 470],
  ] as const;
  body.push(
    `<path d="${bezierPath(cold)}" stroke="#1d4ed8" stroke-width="6" fill="none"/>`,
    ...[0.2, 0.4, 0.6, 0.8].map((t) => {
      const [px, py] = bezierAt(cold, t);
      return `<path d="M${n(px - 16)} ${n(py - 4)} L${n(px + 10)} ${n(py + 12)} L${n(px - 22)} ${n(py + 22)} Z" fill="#1d4ed8"/>`;
    }),
    `<path d="${bezierPath(warm)}" stroke="#c1121f" stroke-width="6" fill="none"/>`,
    ...[0.25, 0.5, 0.75].map((t) => {
      const [px, py] = bezierAt(warm, t);
      return `<circle cx="${n(px)}" cy="${n(py)}" r="13" fill="#c1121f"/>`;
    }),
    text(lowX, lowY + 22, 'L', { size: 72, fill: '#c1121f', weight: 'bold', anchor: 'middle' }),
    text(lowX, lowY + 60, '986', { size: 24, fill: '#1f2937', anchor: 'middle' }),
    text(1060, 560, 'H', { size: 72, fill: '#1d4ed8', weight: 'bold', anchor: 'middle' }),
    text(1060, 598, '1024', { size: 24, fill: '#1f2937', anchor: 'middle' }),
  );
  const cities: [number, number, string][] = [
    [300, 560, 'Harbour City 14°'],
    [420, 440, 'Riverside 12°'],
    [960, 220, 'Northgate 9°'],
  ];
  for (const [cx, cy, label] of cities) {
    body.push(
      `<circle cx="${cx}" cy="${cy}" r="7" fill="#1f2937"/>`,
      text(cx + 14, cy + 8, label, { size: 24, fill: '#1f2937', weight: 'bold' }),
    );
  }
  body.push(
    '<rect x="40" y="30" width="520" height="96" rx="8" fill="#ffffff" opacity="0.92"/>',
    text(64, 72, 'Storm warning from 18:00', { size: 32, fill: '#111827', weight: 'bold' }),
    text(64, 108, 'Gusts up to 70 km/h along the coast', { size: 22, fill: '#4b5563' }),
  );
  return svgDocument(w, h, [], body);
}
