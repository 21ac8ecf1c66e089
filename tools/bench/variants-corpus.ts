import { encodePicture, type Picture, seededRandom, svgToPicture } from '@framedesk/media';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the corpus draws the sample scenes the product shows.
import { SAMPLE_SPECS } from '@framedesk/samples';

/** The kinds of frame agents send; the settings must hold for each (issue 39). */
export const CORPUS_CLASSES = ['photo', 'card', 'chart', 'screenshot'] as const;
export type CorpusClass = (typeof CORPUS_CLASSES)[number];

export interface CorpusImage {
  readonly name: string;
  readonly kind: CorpusClass;
  readonly png: Buffer;
  readonly width: number;
  readonly height: number;
}

/** Which sample scenes stand for which class (libs/samples draws them as SVG). */
const SAMPLE_CLASSES: Record<string, CorpusClass> = {
  'harbour-sunrise': 'photo',
  'mountain-pass': 'photo',
  'riverside-park': 'photo',
  'skyline-dusk': 'photo',
  'night-market': 'photo',
  'derby-score': 'card',
  'tram-line-4': 'card',
  'cycle-lanes-vote': 'card',
  'roof-cam-3': 'card',
  'rainfall-week': 'chart',
  'storm-front': 'chart',
  'ring-road-traffic': 'chart',
};

/**
 * What a camera adds to a drawn scene: grain (sensor noise, ±`amount` per channel, a little
 * correlated between channels as after demosaicing) and a soft 3×3 blur (a lens), so the
 * encoder faces texture as in a photograph rather than flat vector fills.
 */
function photographed(picture: Picture, seed: number, amount = 10): Picture {
  const { width, height, data } = picture;
  const r = seededRandom(seed);
  const out = Buffer.alloc(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const luma = (r() - 0.5) * amount * 1.4;
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        let count = 0;
        for (let dy = -1; dy <= 1; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= height) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx;
            if (xx < 0 || xx >= width) continue;
            const weight = dx === 0 && dy === 0 ? 4 : dx === 0 || dy === 0 ? 2 : 1;
            sum += data[(yy * width + xx) * 3 + c]! * weight;
            count += weight;
          }
        }
        const value = sum / count + luma + (r() - 0.5) * amount * 0.6;
        out[(y * width + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(value)));
      }
    }
  }
  return { data: out, width, height };
}

const esc = (s: string) => s.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`);
const FONT = 'DejaVu Sans, Liberation Sans, Arial, sans-serif';

/**
 * A screenshot of a web application: title bar, sidebar with menu entries, a toolbar, a table of
 * small text with zebra rows and status chips, a few thumbnails and a dialog. Seeded.
 */
export function screenshotSvg(seed: number, width = 1440, height = 900): string {
  const r = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(r() * items.length)]!;
  const words = ['Harbour', 'report', 'draft', 'review', 'traffic', 'weather', 'tram', 'city', 'score', 'update'];
  const phrase = (n: number) => Array.from({ length: n }, () => pick(words)).join(' ');
  const accent = pick(['#2563eb', '#16a34a', '#9333ea', '#ea580c']);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`,
    `<rect width="100%" height="100%" fill="#f8fafc"/>`,
    `<rect width="100%" height="44" fill="#1e293b"/>`,
    `<text x="20" y="28" font-family="${FONT}" font-size="16" fill="#f1f5f9" font-weight="bold">Framedesk — ${esc(phrase(2))}</text>`,
    `<rect y="44" width="220" height="${height - 44}" fill="#e2e8f0"/>`,
  ];
  for (let i = 0; i < 14; i++) {
    const y = 80 + i * 34;
    if (i === 3) out.push(`<rect x="8" y="${y - 20}" width="204" height="30" rx="6" fill="${accent}" opacity="0.15"/>`);
    out.push(
      `<text x="24" y="${y}" font-family="${FONT}" font-size="14" fill="#334155">${esc(phrase(1 + Math.floor(r() * 2)))}</text>`,
    );
  }
  out.push(
    `<rect x="240" y="60" width="${width - 260}" height="40" rx="6" fill="#ffffff" stroke="#cbd5e1"/>`,
    `<text x="256" y="86" font-family="${FONT}" font-size="14" fill="#64748b">Search ${esc(phrase(2))}…</text>`,
    `<rect x="${width - 160}" y="64" width="130" height="32" rx="6" fill="${accent}"/>`,
    `<text x="${width - 95}" y="85" font-family="${FONT}" font-size="14" fill="#fff" text-anchor="middle">Promote</text>`,
  );
  const top = 120;
  for (let row = 0; row < 20; row++) {
    const y = top + row * 30;
    if (y > height - 40) break;
    out.push(`<rect x="240" y="${y}" width="${width - 600}" height="30" fill="${row % 2 ? '#ffffff' : '#f1f5f9'}"/>`);
    out.push(`<rect x="250" y="${y + 5}" width="34" height="20" fill="hsl(${Math.floor(r() * 360)},55%,60%)"/>`);
    out.push(
      `<text x="296" y="${y + 20}" font-family="${FONT}" font-size="13" fill="#0f172a">${esc(phrase(4))}</text>`,
      `<text x="640" y="${y + 20}" font-family="${FONT}" font-size="12" fill="#475569">sub_${Math.floor(r() * 1e9).toString(36)}</text>`,
      `<text x="780" y="${y + 20}" font-family="${FONT}" font-size="12" fill="#475569">2026-11-${10 + (row % 18)} 0${row % 10}:${10 + row}</text>`,
    );
    const chip = pick([
      ['needs review', '#fef3c7', '#92400e'],
      ['promoted', '#dcfce7', '#166534'],
      ['rejected', '#fee2e2', '#991b1b'],
    ] as const);
    out.push(
      `<rect x="${width - 500}" y="${y + 6}" width="100" height="18" rx="9" fill="${chip[1]}"/>`,
      `<text x="${width - 450}" y="${y + 19}" font-family="${FONT}" font-size="11" fill="${chip[2]}" text-anchor="middle">${chip[0]}</text>`,
    );
  }
  // A detail panel with a "picture" (gradient and shapes) and a caption.
  const px = width - 340;
  out.push(
    `<rect x="${px}" y="120" width="320" height="${height - 160}" rx="8" fill="#ffffff" stroke="#cbd5e1"/>`,
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${Math.floor(r() * 360)},70%,60%)"/><stop offset="1" stop-color="hsl(${Math.floor(r() * 360)},60%,30%)"/></linearGradient></defs>`,
    `<rect x="${px + 16}" y="136" width="288" height="162" fill="url(#g)"/>`,
    `<circle cx="${px + 80 + r() * 150}" cy="${190 + r() * 60}" r="${20 + r() * 30}" fill="#fff" opacity="0.5"/>`,
  );
  for (let i = 0; i < 8; i++)
    out.push(
      `<text x="${px + 16}" y="${330 + i * 22}" font-family="${FONT}" font-size="13" fill="#334155">${esc(phrase(4))}</text>`,
    );
  out.push('</svg>');
  return out.join('\n');
}

async function corpusImage(name: string, kind: CorpusClass, picture: Picture): Promise<CorpusImage> {
  return { name, kind, png: await encodePicture(picture), width: picture.width, height: picture.height };
}

/** Sizes frames come in; each scene is rendered at one of them (the drawing is scaled). */
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
  { width: 1024, height: 768 },
] as const;

/** The scene's SVG drawn at `size` (its view scaled to cover it, the overflow cut). */
function atSize(svg: string, size: { width: number; height: number }): string {
  return svg.replace(
    /<svg ([^>]*?)width="\d+" height="\d+"/,
    `<svg $1width="${size.width}" height="${size.height}" preserveAspectRatio="xMidYMid slice"`,
  );
}

/**
 * The corpus: the sample scenes (photo-like ones with grain and a lens's blur), and screenshots
 * drawn here, at the sizes frames come in; `perClass` images of each class (the same bytes every run).
 */
export async function buildCorpus(perClass: number): Promise<CorpusImage[]> {
  const images: CorpusImage[] = [];
  for (const kind of CORPUS_CLASSES) {
    if (kind === 'screenshot') {
      for (let i = 0; i < perClass; i++) {
        const size = SIZES[i % SIZES.length]!;
        images.push(
          await corpusImage(
            `screenshot-${i}`,
            kind,
            await svgToPicture(screenshotSvg(700 + i, size.width, size.height)),
          ),
        );
      }
      continue;
    }
    const specs = SAMPLE_SPECS.filter((s) => SAMPLE_CLASSES[s.name] === kind);
    for (let i = 0; i < perClass; i++) {
      const spec = specs[i % specs.length]!;
      if (spec.picture.kind !== 'scene') continue;
      const size = SIZES[i % SIZES.length]!;
      let picture = await svgToPicture(atSize(spec.picture.draw(seededRandom(1000 + i)), size));
      if (kind === 'photo') picture = photographed(picture, 50 + i);
      images.push(await corpusImage(`${spec.name}-${size.width}x${size.height}`, kind, picture));
    }
  }
  return images;
}
