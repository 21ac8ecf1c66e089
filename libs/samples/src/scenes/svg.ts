/** Small helpers for writing the sample scenes as SVG text (rasterised by libs/media). */

/** A random number source in [0, 1) (libs/media's seededRandom). */
export type Rng = () => number;

/** A value between `min` and `max`. */
export const between = (r: Rng, min: number, max: number): number => min + (max - min) * r();

/** One of `items`. */
export const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;

/** Numbers with at most one decimal: shorter SVG, and the same text on every platform. */
export const n = (value: number): string => String(Math.round(value * 10) / 10);

export const FONT = 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif';

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface TextOptions {
  readonly size: number;
  readonly fill: string;
  readonly weight?: 'normal' | 'bold';
  readonly anchor?: 'start' | 'middle' | 'end';
  readonly opacity?: number;
  readonly spacing?: number;
}

export function text(x: number, y: number, content: string, o: TextOptions): string {
  const attrs = [
    `x="${n(x)}" y="${n(y)}" font-family="${FONT}" font-size="${o.size}" fill="${o.fill}"`,
    o.weight === 'bold' ? ' font-weight="bold"' : '',
    o.anchor && o.anchor !== 'start' ? ` text-anchor="${o.anchor}"` : '',
    o.opacity !== undefined ? ` opacity="${o.opacity}"` : '',
    o.spacing !== undefined ? ` letter-spacing="${o.spacing}"` : '',
  ].join('');
  return `<text ${attrs}>${escapeXml(content)}</text>`;
}

/** A vertical (default) or diagonal linear gradient from `stops` ([offset 0–1, colour]). */
export function linearGradient(
  id: string,
  stops: readonly (readonly [number, string])[],
  direction: { x2: number; y2: number } = { x2: 0, y2: 1 },
): string {
  const body = stops.map(([offset, colour]) => `<stop offset="${offset}" stop-color="${colour}"/>`).join('');
  return `<linearGradient id="${id}" x1="0" y1="0" x2="${direction.x2}" y2="${direction.y2}">${body}</linearGradient>`;
}

/** A glow: `colour` fading out from the centre. */
export function glowGradient(id: string, colour: string, core = colour): string {
  return (
    `<radialGradient id="${id}"><stop offset="0" stop-color="${core}"/>` +
    `<stop offset="0.35" stop-color="${colour}" stop-opacity="0.75"/>` +
    `<stop offset="1" stop-color="${colour}" stop-opacity="0"/></radialGradient>`
  );
}

export const blurFilter = (id: string, deviation: number): string =>
  `<filter id="${id}" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="${deviation}"/></filter>`;

/** A closed shape under a ridge line through `points`, down to `bottom`. */
export function ridge(points: readonly (readonly [number, number])[], bottom: number, fill: string): string {
  const first = points[0]!;
  const last = points.at(-1)!;
  const line = points.map(([x, y]) => `L${n(x)} ${n(y)}`).join(' ');
  return `<path d="M${n(first[0])} ${n(bottom)} ${line} L${n(last[0])} ${n(bottom)} Z" fill="${fill}"/>`;
}

/** Points across `width` every `step` px around `base`, wandering by up to `rough`. */
export function ridgePoints(r: Rng, width: number, base: number, rough: number, step: number): [number, number][] {
  const points: [number, number][] = [];
  let y = base;
  for (let x = -step; x <= width + step; x += step) {
    y = Math.max(base - rough, Math.min(base + rough, y + between(r, -rough, rough) * 0.7));
    points.push([x, y]);
  }
  return points;
}

/** A whole SVG document of `width`×`height` pixels drawn in a `width`×`height` view. */
export function svgDocument(width: number, height: number, defs: readonly string[], body: readonly string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<defs>${defs.join('')}</defs>`,
    ...body,
    '</svg>',
  ].join('\n');
}
