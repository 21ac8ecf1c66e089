import type { Sharp as SharpInstance } from 'sharp';
import { loadSharp } from './sharp-loader';

/**
 * Perceptual fingerprints for near-duplicate frames: a 64-bit difference hash (dHash). The
 * picture is shrunk to 9×8 grey pixels; each bit says whether a pixel is brighter than its right
 * neighbour. Re-encoding, resizing and a small brightness change keep almost every bit; a
 * different picture flips about half. Hashes are signed 64-bit integers, as PostgreSQL's bigint.
 */

/** Bits in a fingerprint. */
export const FINGERPRINT_BITS = 64;

const WIDTH = 9;
const HEIGHT = 8;

/** dHash of an encoded image (any format sharp reads); EXIF orientation applied first. */
export async function perceptualHash(input: Buffer, options: { maxInputPixels?: number } = {}): Promise<bigint> {
  const sharp = await loadSharp();
  return hashPipeline(
    sharp(input, { limitInputPixels: options.maxInputPixels ?? 100_000_000, failOn: 'error' }).autoOrient(),
  );
}

/** dHash of a sharp pipeline (cloned, so the caller's pipeline can go on to other outputs). */
export function perceptualHashOf(pipeline: SharpInstance): Promise<bigint> {
  return hashPipeline(pipeline.clone());
}

/**
 * dHash of a pipeline made for it alone, which this uses up. Not cloned: sharp's clone copies the
 * options with structuredClone, input buffer included (2.8 MB of raw pixels for a 1280×720 frame).
 */
export async function hashPipeline(pipeline: SharpInstance): Promise<bigint> {
  const { data } = await pipeline
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(WIDTH, HEIGHT, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return hashFromGrey(data);
}

/** The dHash bits of a 9×8 single-channel image (row-major). */
export function hashFromGrey(grey: Uint8Array): bigint {
  if (grey.length !== WIDTH * HEIGHT) throw new Error(`expected ${WIDTH * HEIGHT} grey pixels, got ${grey.length}`);
  let bits = 0n;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH - 1; x++) {
      const left = grey[y * WIDTH + x]!;
      const right = grey[y * WIDTH + x + 1]!;
      bits = (bits << 1n) | (left > right ? 1n : 0n);
    }
  }
  return BigInt.asIntN(FINGERPRINT_BITS, bits);
}

/** Number of differing bits between two fingerprints (0–64). */
export function hammingDistance(a: bigint, b: bigint): number {
  let x = BigInt.asUintN(FINGERPRINT_BITS, a ^ b);
  let count = 0;
  while (x !== 0n) {
    x &= x - 1n;
    count++;
  }
  return count;
}
