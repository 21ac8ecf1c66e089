import type { Sharp as SharpPipeline } from 'sharp';
import type { Size } from './geometry';
import { loadSharp } from './sharp-loader';

/** Raw RGBA pixels (what ssim.js and canvases read). */
export interface RgbaPixels {
  readonly data: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
}

async function rgba(pipeline: SharpPipeline): Promise<RgbaPixels> {
  const { data, info } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
}

/**
 * What a variant of `size` should look like: the original, oriented and resized as `processImage`
 * resizes it (same kernel), never compressed. The benchmark compares each variant with it.
 */
export async function variantReference(input: Buffer, size: Size): Promise<RgbaPixels> {
  const sharp = await loadSharp();
  let image = sharp(input, { limitInputPixels: false }).autoOrient();
  const meta = await sharp(input, { limitInputPixels: false }).metadata();
  const source = meta.autoOrient ?? { width: meta.width, height: meta.height };
  if (source.width !== size.width || source.height !== size.height)
    image = image.resize({ width: size.width, height: size.height, fit: 'fill' });
  return rgba(image);
}

/** An encoded image's pixels as RGBA. */
export async function decodeRgba(encoded: Buffer): Promise<RgbaPixels> {
  const sharp = await loadSharp();
  return rgba(sharp(encoded));
}
