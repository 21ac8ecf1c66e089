import { hammingDistance, perceptualHash, perceptualHashOf } from './fingerprint';
import { loadSharp } from './sharp-loader';

/**
 * A labelled set of near-duplicates for measuring the fingerprint: generated pictures (gradients,
 * overlapping shapes, noise — each one different), the edits agents make when they send a picture
 * again, and unrelated pictures. Used by the quality test and by `tools/fingerprint-quality.ts`.
 */

export const EDITS = [
  're-encode',
  'resize 50%',
  'resize 150%',
  'brightness +10%',
  'brightness -10%',
  'crop 4%',
  'caption',
  'resize 75% + brightness +5%',
] as const;
export type Edit = (typeof EDITS)[number];

export interface QualitySet {
  /** Fingerprint of each original picture. */
  readonly originals: readonly bigint[];
  /** Fingerprint of each edit of each original: edited[i][edit]. */
  readonly edited: readonly Readonly<Record<Edit, bigint>>[];
  /** Fingerprints of pictures unrelated to every original. */
  readonly unrelated: readonly bigint[];
}

export interface QualityRow {
  readonly threshold: number;
  /** Share of (original, edit) pairs within the threshold. */
  readonly recall: number;
  /** Share of pairs of different pictures within the threshold. */
  readonly falsePositiveRate: number;
  readonly recallByEdit: Readonly<Record<Edit, number>>;
}

/** Small deterministic PRNG (mulberry32): numbers in [0, 1), the same sequence for a seed on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Raw RGB pixels of a generated picture. */
export interface Picture {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
}

type Shape = (x: number, y: number) => boolean;

/**
 * A generated picture: a three-colour gradient at a random angle, 4–9 translucent shapes (discs,
 * boxes, ellipses, triangles) and a little pixel noise, as a camera or a renderer leaves. Drawn in
 * JavaScript (no SVG renderer), so hundreds are made in well under a second.
 */
export function generatePicture(seed: number, width = 128, height = 96): Picture {
  const r = seededRandom(seed);
  const rgb = () => [r() * 255, r() * 255, r() * 255] as const;
  const angle = r() * Math.PI * 2;
  const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
  const stops = [rgb(), rgb(), rgb()];
  const shapes: { inside: Shape; colour: readonly number[]; alpha: number }[] = [];
  const count = 4 + Math.floor(r() * 6);
  for (let i = 0; i < count; i++) {
    const cx = r() * width;
    const cy = r() * height;
    const size = (0.1 + r() * 0.45) * Math.min(width, height);
    const kind = Math.floor(r() * 4);
    let inside: Shape;
    if (kind === 0) inside = (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= (size / 2) ** 2;
    else if (kind === 1) inside = (x, y) => Math.abs(x - cx) <= size / 2 && Math.abs(y - cy) <= size / 3;
    else if (kind === 2) inside = (x, y) => ((x - cx) / (size / 1.5)) ** 2 + ((y - cy) / (size / 3)) ** 2 <= 1;
    else {
      const p = [0, 1, 2].map(() => [cx + (r() - 0.5) * size * 2, cy + (r() - 0.5) * size * 2] as const);
      const side = (x: number, y: number, a: readonly number[], b: readonly number[]) =>
        (b[0]! - a[0]!) * (y - a[1]!) - (b[1]! - a[1]!) * (x - a[0]!);
      inside = (x, y) => {
        const s = [side(x, y, p[0]!, p[1]!), side(x, y, p[1]!, p[2]!), side(x, y, p[2]!, p[0]!)];
        return s.every((v) => v >= 0) || s.every((v) => v <= 0);
      };
    }
    shapes.push({ inside, colour: rgb(), alpha: 0.5 + r() * 0.5 });
  }
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // Position along the gradient, 0–1.
      const t = Math.min(1, Math.max(0, 0.5 + ((x / width - 0.5) * dx + (y / height - 0.5) * dy)));
      const [a, b, u] = t < 0.5 ? [stops[0]!, stops[1]!, t * 2] : [stops[1]!, stops[2]!, t * 2 - 1];
      const pixel = [0, 1, 2].map((c) => a[c]! + (b[c]! - a[c]!) * u);
      for (const shape of shapes) {
        if (!shape.inside(x, y)) continue;
        for (let c = 0; c < 3; c++) pixel[c] = pixel[c]! * (1 - shape.alpha) + shape.colour[c]! * shape.alpha;
      }
      const noise = (r() - 0.5) * 24;
      for (let c = 0; c < 3; c++) data[(y * width + x) * 3 + c] = Math.round(pixel[c]! + noise);
    }
  }
  return { data, width, height };
}

const captions = new Map<string, Promise<Buffer>>();

/** A caption band (translucent black, white text) as PNG, rendered once per size. */
function captionBand(width: number, height: number): Promise<Buffer> {
  const key = `${width}x${height}`;
  let band = captions.get(key);
  if (!band) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<rect width="100%" height="100%" fill="black" fill-opacity="0.45"/>
<text x="4" y="${height - 3}" font-family="sans-serif" font-size="${height - 4}" fill="white">New caption!</text></svg>`;
    band = loadSharp().then((sharp) => sharp(Buffer.from(svg)).png().toBuffer());
    captions.set(key, band);
  }
  return band;
}

/** Applies one edit to a picture; the result is what an agent would send again (encoded). */
export async function applyEdit(picture: Picture, edit: Edit): Promise<Buffer> {
  const sharp = await loadSharp();
  const { width, height } = picture;
  const image = sharp(picture.data, { raw: { width, height, channels: 3 } });
  const scaled = (f: number) => ({ width: Math.round(width * f), height: Math.round(height * f) });
  switch (edit) {
    case 're-encode':
      return image.jpeg({ quality: 60 }).toBuffer();
    case 'resize 50%':
      return image.resize(scaled(0.5)).png({ compressionLevel: 1 }).toBuffer();
    case 'resize 150%':
      return image.resize(scaled(1.5)).jpeg({ quality: 85 }).toBuffer();
    case 'brightness +10%':
      return image.modulate({ brightness: 1.1 }).png({ compressionLevel: 1 }).toBuffer();
    case 'brightness -10%':
      return image.modulate({ brightness: 0.9 }).png({ compressionLevel: 1 }).toBuffer();
    case 'crop 4%': {
      const dx = Math.round(width * 0.04);
      const dy = Math.round(height * 0.04);
      return image
        .extract({ left: dx, top: dy, width: width - 2 * dx, height: height - 2 * dy })
        .png({ compressionLevel: 1 })
        .toBuffer();
    }
    case 'caption': {
      const band = Math.round(height * 0.14);
      return image
        .composite([{ input: await captionBand(width, band), top: height - band, left: 0 }])
        .png({ compressionLevel: 1 })
        .toBuffer();
    }
    case 'resize 75% + brightness +5%':
      return image.resize(scaled(0.75)).modulate({ brightness: 1.05 }).jpeg({ quality: 80 }).toBuffer();
  }
}

/** The picture encoded as PNG (what an agent sends first). */
export async function encodePicture(picture: Picture): Promise<Buffer> {
  const sharp = await loadSharp();
  const { data, width, height } = picture;
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** The picture re-rendered as PNG at `scale` of its size and `brightness` (1 = unchanged). */
export async function rerender(picture: Picture, scale: number, brightness: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const { data, width, height } = picture;
  return sharp(data, { raw: { width, height, channels: 3 } })
    .resize(Math.round(width * scale), Math.round(height * scale))
    .modulate({ brightness })
    .png()
    .toBuffer();
}

async function hashPicture(picture: Picture): Promise<bigint> {
  const sharp = await loadSharp();
  const { data, width, height } = picture;
  return perceptualHashOf(sharp(data, { raw: { width, height, channels: 3 } }));
}

/** Fingerprints `count` originals with every edit, and `count` unrelated pictures. */
export async function buildQualitySet(count: number, size = { width: 128, height: 96 }): Promise<QualitySet> {
  const originals: bigint[] = [];
  const edited: Record<Edit, bigint>[] = [];
  const unrelated: bigint[] = [];
  const one = async (i: number) => {
    const picture = generatePicture(1000 + i, size.width, size.height);
    const edits = await Promise.all(EDITS.map(async (edit) => perceptualHash(await applyEdit(picture, edit))));
    originals[i] = await hashPicture(picture);
    edited[i] = Object.fromEntries(EDITS.map((edit, k) => [edit, edits[k]!])) as Record<Edit, bigint>;
    unrelated[i] = await hashPicture(generatePicture(900_000 + i, size.width, size.height));
  };
  // A few pictures at a time: libvips works on libuv's threads while the next picture is drawn.
  for (let i = 0; i < count; i += 4) await Promise.all([i, i + 1, i + 2, i + 3].filter((k) => k < count).map(one));
  return { originals, edited, unrelated };
}

/** Recall and false-positive rate of the set at each threshold. */
export function measureQuality(set: QualitySet, thresholds: readonly number[]): QualityRow[] {
  const positives = set.edited.flatMap((edits, i) =>
    EDITS.map((edit) => ({ edit, distance: hammingDistance(set.originals[i]!, edits[edit]) })),
  );
  // Negatives: every original against every unrelated picture and every other original.
  const negatives: number[] = [];
  for (let i = 0; i < set.originals.length; i++) {
    for (const u of set.unrelated) negatives.push(hammingDistance(set.originals[i]!, u));
    for (let j = i + 1; j < set.originals.length; j++)
      negatives.push(hammingDistance(set.originals[i]!, set.originals[j]!));
  }
  return thresholds.map((threshold) => {
    const recallByEdit = {} as Record<Edit, number>;
    for (const edit of EDITS) {
      const ofEdit = positives.filter((p) => p.edit === edit);
      recallByEdit[edit] = ofEdit.filter((p) => p.distance <= threshold).length / ofEdit.length;
    }
    return {
      threshold,
      recall: positives.filter((p) => p.distance <= threshold).length / positives.length,
      falsePositiveRate: negatives.filter((d) => d <= threshold).length / negatives.length,
      recallByEdit,
    };
  });
}
