import type { Sharp as SharpInstance } from 'sharp';

/**
 * What a review policy reads from a frame's pixels (docs/policies.md `signals`), measured on a
 * greyscale copy at most SIGNAL_SIDE pixels on its longer side, sampled from the pixels already
 * decoded for the variants (no second decode, no second pass over every pixel).
 */
export interface PixelSignals {
  /** A near-uniform picture (a failed render): luminance spread below BLANK_SPREAD. */
  readonly blank: boolean;
  /** Mean luminance, 0 (black) – 255 (white). */
  readonly luminance: number;
  /** Standard deviation of the luminance, 0–127.5. */
  readonly luminance_spread: number;
  /** Variance of the Laplacian (4-neighbour): low for a blurred or flat picture. */
  readonly sharpness: number;
}

/** Longer side of the greyscale copy the signals are measured on. */
export const SIGNAL_SIDE = 256;
/** A picture whose luminance standard deviation is below this (of 255) is blank. */
export const BLANK_SPREAD = 4;

const round = (n: number) => Math.round(n * 100) / 100;

/** The signals of a single-channel picture (row-major). Pure. */
export function signalsFromGrey(grey: Uint8Array, width: number, height: number): PixelSignals {
  const n = width * height;
  if (n === 0 || grey.length < n) throw new Error(`expected ${n} grey pixels, got ${grey.length}`);
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const v = grey[i]!;
    sum += v;
    squares += v * v;
  }
  const mean = sum / n;
  const spread = Math.sqrt(Math.max(0, squares / n - mean * mean));
  let lapSum = 0;
  let lapSquares = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const lap = grey[i - width]! + grey[i + width]! + grey[i - 1]! + grey[i + 1]! - 4 * grey[i]!;
      lapSum += lap;
      lapSquares += lap * lap;
      count++;
    }
  }
  const lapMean = count > 0 ? lapSum / count : 0;
  const sharpness = count > 0 ? lapSquares / count - lapMean * lapMean : 0;
  return {
    blank: spread < BLANK_SPREAD,
    luminance: round(mean),
    luminance_spread: round(spread),
    sharpness: round(Math.max(0, sharpness)),
  };
}

/**
 * The signals of a pipeline made for it alone, which this uses up: for an image too large to be
 * decoded once for all its variants (processImage then has no raw pixels to sample).
 */
export async function signalsOfPipeline(pipeline: SharpInstance): Promise<PixelSignals> {
  const { data, info } = await pipeline
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(SIGNAL_SIDE, SIGNAL_SIDE, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return signalsFromGrey(data, info.width, info.height);
}

/** Pixels as sharp's raw output holds them: row-major, `channels` bytes a pixel (grey, grey+alpha, RGB, RGBA). */
export interface RawPixels {
  readonly data: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 2 | 3 | 4;
}

/** Luma (Rec. 601, in 8-bit fixed point) of the pixel at byte `at`, its alpha flattened on white. */
function lumaAt(data: Uint8Array, at: number, channels: 1 | 2 | 3 | 4): number {
  const colour = channels >= 3 ? (77 * data[at]! + 150 * data[at + 1]! + 29 * data[at + 2]!) >> 8 : data[at]!;
  if (channels === 1 || channels === 3) return colour;
  const alpha = data[at + channels - 1]!;
  return (colour * alpha + 255 * (255 - alpha)) / 255;
}

/**
 * A greyscale copy at most `side` pixels on its longer side, in one pass over the decoded pixels:
 * each of its pixels is the mean luma of four pixels spread over its block of the original (a
 * box filter's sample). A 1280×720 frame is read at 147,000 points, not at its 921,600 pixels.
 */
export function greyCopy(raw: RawPixels, side = SIGNAL_SIDE): { grey: Uint8Array; width: number; height: number } {
  const { data, width, height, channels } = raw;
  const scale = Math.max(1, Math.max(width, height) / side);
  const w = Math.max(1, Math.round(width / scale));
  const h = Math.max(1, Math.round(height / scale));
  const grey = new Uint8Array(w * h);
  // Two sample rows and columns in each block: a quarter and three quarters of the way through.
  const samples = (count: number, size: number) =>
    Array.from({ length: count }, (_, i) => {
      const start = Math.floor((i * size) / count);
      const end = Math.max(start + 1, Math.floor(((i + 1) * size) / count));
      return [start + ((end - start) >> 2), start + ((3 * (end - start)) >> 2)] as const;
    });
  const columns = samples(w, width);
  const rows = samples(h, height);
  for (let y = 0; y < h; y++) {
    const [r0, r1] = rows[y]!;
    for (let x = 0; x < w; x++) {
      const [c0, c1] = columns[x]!;
      const sum =
        lumaAt(data, (r0 * width + c0) * channels, channels) +
        lumaAt(data, (r0 * width + c1) * channels, channels) +
        lumaAt(data, (r1 * width + c0) * channels, channels) +
        lumaAt(data, (r1 * width + c1) * channels, channels);
      grey[y * w + x] = Math.round(sum / 4);
    }
  }
  return { grey, width: w, height: h };
}

/**
 * The signals of pixels already decoded (sharp's raw output), as processImage measures them from
 * the pixels it decoded for the variants: JavaScript over a sample of them, no sharp pipeline.
 * The policy benchmark times it in-process.
 */
export function signalsOfDecoded(raw: RawPixels): PixelSignals {
  const { grey, width, height } = greyCopy(raw);
  return signalsFromGrey(grey, width, height);
}
