import {
  between,
  blurFilter,
  glowGradient,
  linearGradient,
  n,
  pick,
  ridge,
  ridgePoints,
  type Rng,
  svgDocument,
} from './svg';

/** Soft clouds: blurred ellipses in a band of the sky. */
function clouds(r: Rng, count: number, area: { width: number; top: number; bottom: number }, fill: string): string[] {
  return Array.from({ length: count }, () => {
    const cx = between(r, 0, area.width);
    const cy = between(r, area.top, area.bottom);
    return `<ellipse cx="${n(cx)}" cy="${n(cy)}" rx="${n(between(r, 90, 260))}" ry="${n(between(r, 14, 34))}" fill="${fill}" opacity="${n(between(r, 0.25, 0.6))}" filter="url(#soft)"/>`;
  });
}

/** A small sailing boat: hull, mast and sail, at (x, y) scaled by `s`. */
function boat(x: number, y: number, s: number, fill: string): string {
  return (
    `<g transform="translate(${n(x)} ${n(y)}) scale(${n(s)})" fill="${fill}">` +
    '<path d="M-40 0 L40 0 L28 12 L-30 12 Z"/><rect x="-2" y="-70" width="3" height="70"/>' +
    '<path d="M2 -66 L34 -6 L2 -6 Z" opacity="0.9"/></g>'
  );
}

/** Sunrise over a harbour: sky, sun, hills, pier, boats and the sun's reflection on the water. */
export function harbourSunrise(r: Rng): string {
  const [w, h, horizon] = [1280, 720, 430];
  const sunX = between(r, 640, 900);
  const body = [
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    `<circle cx="${n(sunX)}" cy="${horizon - 10}" r="300" fill="url(#sun)"/>`,
    `<circle cx="${n(sunX)}" cy="${horizon - 14}" r="40" fill="#fff4cf"/>`,
    ...clouds(r, 6, { width: w, top: 70, bottom: 300 }, '#ffd6a5'),
    ridge(ridgePoints(r, w, horizon - 32, 26, 80), horizon, '#6d5a7a'),
    ridge(
      ridgePoints(r, 520, horizon - 60, 30, 60).map(([x, y]) => [x, y + x / 9]),
      horizon + 2,
      '#2d2a40',
    ),
    `<rect y="${horizon}" width="${w}" height="${h - horizon}" fill="url(#water)"/>`,
  ];
  for (let i = 0; i < 16; i++) {
    const y = horizon + 6 + i * i * 1.1;
    const half = (24 + i * 9) * between(r, 0.6, 1.3);
    body.push(
      `<rect x="${n(sunX - half)}" y="${n(y)}" width="${n(half * 2)}" height="${n(2 + i * 0.4)}" fill="#ffe6a8" opacity="${n(0.7 - i * 0.035)}"/>`,
    );
  }
  body.push(
    `<rect x="930" y="${horizon + 52}" width="350" height="16" fill="#1f1b2e"/>`,
    ...Array.from(
      { length: 8 },
      (_, i) => `<rect x="${940 + i * 44}" y="${horizon + 64}" width="7" height="46" fill="#1f1b2e"/>`,
    ),
    boat(between(r, 180, 320), horizon + 80, 1.2, '#241f33'),
    boat(between(r, 420, 560), horizon + 40, 0.7, '#3b3350'),
  );
  const defs = [
    linearGradient('sky', [
      [0, '#14213d'],
      [0.35, '#5e4b73'],
      [0.62, '#e56b6f'],
      [0.8, '#f6bd60'],
    ]),
    linearGradient('water', [
      [0, '#e9a17c'],
      [0.25, '#8c6a84'],
      [1, '#1d2238'],
    ]),
    glowGradient('sun', '#ffc971', '#fff1c1'),
    blurFilter('soft', 10),
  ];
  return svgDocument(w, h, defs, body);
}

/** A ridge of `count` peaks over `base`: each a steep cone of its own height, with small steps. */
function peaks(r: Rng, width: number, base: number, count: number, height: readonly [number, number]) {
  const cones = Array.from({ length: count }, () => ({
    x: between(r, -100, width + 100),
    h: between(r, height[0], height[1]),
    slope: between(r, 0.55, 0.95),
  }));
  const points: [number, number][] = [];
  for (let x = -20; x <= width + 20; x += 20) {
    const rise = Math.max(0, ...cones.map((c) => c.h - Math.abs(x - c.x) * c.slope));
    points.push([x, base - rise + between(r, -4, 4)]);
  }
  return { points, top: base - Math.max(...cones.map((c) => c.h)) };
}

/** A mountain pass after snowfall: four ridges fading with distance, snow on the high peaks, a road. */
export function mountainPass(r: Rng): string {
  const [w, h] = [1280, 720];
  const layers = [
    { base: 420, count: 5, height: [160, 300], fill: '#9fb3c8', snow: true },
    { base: 480, count: 6, height: [110, 220], fill: '#7890a8', snow: true },
    { base: 560, count: 7, height: [60, 140], fill: '#4f6479', snow: false },
    { base: 640, count: 6, height: [30, 80], fill: '#2f3e46', snow: false },
  ] as const;
  const body = [
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    `<circle cx="${n(between(r, 200, 1000))}" cy="120" r="180" fill="url(#haze)"/>`,
  ];
  const defs = [
    linearGradient('sky', [
      [0, '#8fb8de'],
      [0.6, '#dfeaf5'],
      [1, '#f4f7fb'],
    ]),
    glowGradient('haze', '#ffffff'),
  ];
  layers.forEach((layer, i) => {
    const { points, top } = peaks(r, w, layer.base, layer.count, layer.height);
    body.push(ridge(points, h, layer.fill));
    if (layer.snow) {
      // Snow on what rises above 60 % of the ridge's highest peak.
      const line = top + (layer.base - top) * 0.4;
      const edge = Array.from({ length: w / 20 + 1 }, (_, k) => `L${w - k * 20} ${n(line + between(r, -14, 10))}`);
      defs.push(`<clipPath id="snow${i}"><path d="M0 0 L${w} 0 ${edge.join(' ')} Z"/></clipPath>`);
      body.push(`<g clip-path="url(#snow${i})">${ridge(points, h, '#f7fbff')}</g>`);
    }
  });
  body.push(
    '<path d="M1280 660 C980 640 900 690 700 680 S380 640 240 720" stroke="#c9ced4" stroke-width="26" fill="none"/>',
    '<path d="M1280 660 C980 640 900 690 700 680 S380 640 240 720" stroke="#f2f2f2" stroke-width="3" stroke-dasharray="22 18" fill="none"/>',
  );
  return svgDocument(w, h, defs, body);
}

/** A tree: a trunk and a crown of overlapping circles. */
function tree(r: Rng, x: number, ground: number, size: number, crown: string): string {
  const parts = [
    `<rect x="${n(x - size * 0.06)}" y="${n(ground - size)}" width="${n(size * 0.12)}" height="${n(size)}" fill="#3b2f2f"/>`,
  ];
  for (let i = 0; i < 5; i++) {
    const cx = x + between(r, -0.3, 0.3) * size;
    const cy = ground - size * between(r, 0.9, 1.35);
    parts.push(`<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(size * between(r, 0.28, 0.42))}" fill="${crown}"/>`);
  }
  return parts.join('');
}

/** An evening in a park: warm sky, lawn, a winding path, trees with long shadows, a bench. */
export function riversidePark(r: Rng): string {
  const [w, h, ground] = [1280, 853, 520];
  const body = [
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    `<circle cx="${n(between(r, 150, 400))}" cy="${ground - 40}" r="220" fill="url(#sun)"/>`,
    ridge(ridgePoints(r, w, ground - 20, 12, 90), h, '#5b7f4a'),
    `<rect y="${ground}" width="${w}" height="${h - ground}" fill="url(#lawn)"/>`,
    `<path d="M560 ${ground} C600 620 420 700 520 ${h}" stroke="#e8d5b0" stroke-width="70" fill="none" opacity="0.9"/>`,
  ];
  const trees = Array.from({ length: 9 }, (_, i) => ({
    x: 60 + i * 140 + between(r, -30, 30),
    size: between(r, 90, 200),
  }));
  for (const t of trees) {
    body.push(
      `<ellipse cx="${n(t.x + t.size * 1.3)}" cy="${n(ground + t.size * 0.08)}" rx="${n(t.size * 1.4)}" ry="${n(t.size * 0.1)}" fill="#1f3a1f" opacity="0.35"/>`,
      tree(r, t.x, ground + 6, t.size, pick(r, ['#2e5e2e', '#386641', '#4f772d', '#31572c'])),
    );
  }
  body.push(
    '<g fill="#4a3728"><rect x="820" y="640" width="150" height="12"/><rect x="820" y="612" width="150" height="8"/>' +
      '<rect x="830" y="652" width="8" height="34"/><rect x="952" y="652" width="8" height="34"/></g>',
  );
  const defs = [
    linearGradient('sky', [
      [0, '#355c7d'],
      [0.55, '#f67280'],
      [1, '#f8b195'],
    ]),
    linearGradient('lawn', [
      [0, '#6a994e'],
      [1, '#2f4f2f'],
    ]),
    glowGradient('sun', '#ffd6a5', '#fff3d6'),
  ];
  return svgDocument(w, h, defs, body);
}

/** A city skyline at dusk: towers with lit windows, an arched bridge and the river. */
export function skylineAtDusk(r: Rng): string {
  const [w, h, street] = [1280, 720, 520];
  const body = [
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    `<circle cx="${n(between(r, 900, 1150))}" cy="110" r="26" fill="#f1f1e6"/>`,
  ];
  for (let x = -20; x < w;) {
    const bw = between(r, 50, 120);
    const bh = between(r, 140, 400);
    const top = street - bh;
    body.push(
      `<rect x="${n(x)}" y="${n(top)}" width="${n(bw)}" height="${n(bh)}" fill="${pick(r, ['#1c2541', '#22304f', '#172038'])}"/>`,
    );
    for (let wy = top + 14; wy < street - 16; wy += 22) {
      for (let wx = x + 8; wx < x + bw - 12; wx += 16) {
        if (r() < 0.38)
          body.push(
            `<rect x="${n(wx)}" y="${n(wy)}" width="8" height="11" fill="#ffd166" opacity="${n(between(r, 0.6, 1))}"/>`,
          );
      }
    }
    x += bw + between(r, 2, 14);
  }
  body.push(
    `<rect y="${street}" width="${w}" height="${h - street}" fill="url(#river)"/>`,
    `<path d="M0 600 Q320 470 640 600 Q960 470 1280 600" stroke="#0b0f1e" stroke-width="16" fill="none"/>`,
    `<rect y="596" width="${w}" height="14" fill="#0b0f1e"/>`,
    ...Array.from({ length: 9 }, (_, i) => `<rect x="${i * 160 - 4}" y="540" width="8" height="70" fill="#0b0f1e"/>`),
  );
  const defs = [
    linearGradient('sky', [
      [0, '#0b132b'],
      [0.5, '#3a506b'],
      [0.72, '#c8553d'],
      [0.8, '#f08a4b'],
    ]),
    linearGradient('river', [
      [0, '#3d3a55'],
      [1, '#0b132b'],
    ]),
  ];
  return svgDocument(w, h, defs, body);
}

/** A ferry crossing a bay in daylight, `progress` 0–1 of the way across: frames of a clip. */
export function ferryCrossing(r: Rng, progress: number): string {
  const [w, h, shore] = [640, 360, 170];
  const body = [
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
    ...clouds(r, 4, { width: w, top: 30, bottom: 110 }, '#ffffff'),
    ridge(ridgePoints(r, w, shore - 24, 14, 50), shore + 2, '#6b8f71'),
  ];
  for (let x = 20; x < w; x += between(r, 40, 90)) {
    body.push(
      `<rect x="${n(x)}" y="${shore - 18}" width="22" height="18" fill="${pick(r, ['#f4f1de', '#e07a5f', '#f2cc8f'])}"/>` +
        `<path d="M${n(x - 3)} ${shore - 18} L${n(x + 11)} ${shore - 30} L${n(x + 25)} ${shore - 18} Z" fill="#81444b"/>`,
    );
  }
  body.push(`<rect y="${shore}" width="${w}" height="${h - shore}" fill="url(#sea)"/>`);
  for (let i = 0; i < 24; i++) {
    const y = between(r, shore + 10, h);
    body.push(
      `<rect x="${n(between(r, 0, w))}" y="${n(y)}" width="${n(between(r, 20, 60))}" height="2" fill="#ffffff" opacity="0.35"/>`,
    );
  }
  const x = -180 + progress * (w + 200);
  body.push(
    `<ellipse cx="${n(x - 90)}" cy="262" rx="110" ry="8" fill="#ffffff" opacity="0.55"/>`,
    `<g transform="translate(${n(x)} 250)"><path d="M-90 0 L90 0 L74 22 L-80 22 Z" fill="#f7f7f7"/>` +
      '<rect x="-86" y="6" width="172" height="5" fill="#1d4e89"/><rect x="-56" y="-26" width="112" height="26" fill="#fafafa"/>' +
      '<rect x="-48" y="-20" width="96" height="8" fill="#274c77"/><rect x="10" y="-48" width="16" height="22" fill="#c1121f"/></g>',
  );
  const defs = [
    linearGradient('sky', [
      [0, '#5fa8d3'],
      [1, '#e0f2fb'],
    ]),
    linearGradient('sea', [
      [0, '#4f9ca8'],
      [1, '#1b4965'],
    ]),
    blurFilter('soft', 6),
  ];
  return svgDocument(w, h, defs, body);
}

/** A night market in portrait: string lights over the street, striped stalls, passers-by. */
export function nightMarket(r: Rng): string {
  const [w, h] = [720, 960];
  const body = [`<rect width="${w}" height="${h}" fill="url(#sky)"/>`];
  for (let x = -10; x < w; x += between(r, 60, 110)) {
    const bh = between(r, 260, 480);
    body.push(
      `<rect x="${n(x)}" y="${n(700 - bh)}" width="${n(between(r, 60, 110))}" height="${n(bh)}" fill="#23233b"/>`,
    );
  }
  body.push(`<rect y="700" width="${w}" height="${h - 700}" fill="#1f1f33"/>`);
  for (const [i, sag] of [
    [0, 60],
    [1, 80],
    [2, 50],
  ] as const) {
    const y0 = 170 + i * 110;
    body.push(`<path d="M0 ${y0} Q${w / 2} ${y0 + sag * 2} ${w} ${y0}" stroke="#444" stroke-width="2" fill="none"/>`);
    for (let k = 1; k < 14; k++) {
      const t = k / 14;
      const x = t * w;
      const y = y0 + 4 * sag * t * (1 - t);
      body.push(
        `<circle cx="${n(x)}" cy="${n(y + 8)}" r="22" fill="url(#bulb)"/><circle cx="${n(x)}" cy="${n(y + 8)}" r="5" fill="#fff3b0"/>`,
      );
    }
  }
  const awnings = [
    ['#e63946', '#f1faee'],
    ['#2a9d8f', '#e9c46a'],
    ['#f4a261', '#264653'],
  ];
  awnings.forEach(([a, b], i) => {
    const x = 20 + i * 235;
    body.push(
      `<rect x="${x}" y="640" width="210" height="150" fill="#3d2c2e"/>`,
      `<rect x="${x + 10}" y="700" width="190" height="40" fill="#ffd166" opacity="0.55"/>`,
    );
    for (let s = 0; s < 7; s++)
      body.push(`<rect x="${x + s * 30}" y="600" width="30" height="46" fill="${s % 2 ? b : a}"/>`);
  });
  for (let i = 0; i < 7; i++) {
    const x = between(r, 30, w - 30);
    const s = between(r, 0.8, 1.15);
    body.push(
      `<g transform="translate(${n(x)} ${n(between(r, 860, 900))}) scale(${n(s)})" fill="#0d0d1a"><circle cy="-96" r="17"/><rect x="-22" y="-76" width="44" height="86" rx="18"/></g>`,
    );
  }
  const defs = [
    linearGradient('sky', [
      [0, '#0f0f24'],
      [1, '#2b2d42'],
    ]),
    glowGradient('bulb', '#ffd166', '#fff3b0'),
  ];
  return svgDocument(w, h, defs, body);
}
