import type { Sharp as SharpInstance } from 'sharp';
import { loadSharp } from './sharp-loader';

/**
 * What a review policy reads from a frame's pixels (docs/policies.md `signals`), measured on a
 * greyscale copy at most SIGNAL_SIDE pixels on its longer side, made from the pixels already
 * decoded for the variants (no second decode).
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

/** The signals of a pipeline made for it alone (the decoded pixels), which this uses up. */
export async function signalsOfPipeline(pipeline: SharpInstance): Promise<PixelSignals> {
  const { data, info } = await pipeline
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(SIGNAL_SIDE, SIGNAL_SIDE, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return signalsFromGrey(data, info.width, info.height);
}

/**
 * The signals of pixels already decoded (sharp's raw output), as processImage measures them from
 * the pixels it decoded for the variants. The pipeline benchmark times it in-process.
 */
export async function signalsOfDecoded(raw: {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 2 | 3 | 4;
}): Promise<PixelSignals> {
  const sharp = await loadSharp();
  return signalsOfPipeline(sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } }));
}
