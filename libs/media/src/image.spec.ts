import { parseVariantName, type VariantSpec } from '@framedesk/config';
import { makePng, makePngBomb } from '@framedesk/testing';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { isImageProcessingError, processImage } from './image';

const specs = (...names: string[]): VariantSpec[] => names.map((n) => parseVariantName(n)!);

async function failureOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isImageProcessingError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('processImage', () => {
  it('makes every variant as WebP at its size', async () => {
    const result = await processImage(
      makePng(600, 300),
      specs('public', 'thumbnail', 'preview', 'w100', 'h50', '64x64'),
    );
    expect({ width: result.width, height: result.height }).toEqual({ width: 600, height: 300 });
    const sizes = Object.fromEntries(result.variants.map((v) => [v.name, `${v.width}x${v.height}`]));
    expect(sizes).toEqual({
      public: '600x300',
      thumbnail: '256x128',
      preview: '600x300',
      w100: '100x50',
      h50: '100x50',
      '64x64': '64x64',
    });
    for (const variant of result.variants) {
      const meta = await sharp(variant.data).metadata();
      expect(meta.format).toBe('webp');
      expect(`${meta.width}x${meta.height}`).toBe(sizes[variant.name]);
      expect(variant.byteSize).toBe(variant.data.length);
      expect(meta.exif).toBeUndefined();
    }
  });

  it('applies EXIF orientation', async () => {
    const rotated = await sharp(makePng(40, 20)).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const result = await processImage(rotated, specs('public'), { allowedFormats: ['jpeg'] });
    expect([result.width, result.height]).toEqual([20, 40]);
    expect([result.variants[0]!.width, result.variants[0]!.height]).toEqual([20, 40]);
  });

  it('refuses a decompression bomb by its header as image_too_large', async () => {
    expect(await failureOf(processImage(makePngBomb(20_000), specs('thumbnail')))).toBe('image_too_large');
  });

  it('refuses corrupt pixel data as invalid_image', async () => {
    const png = makePng(64, 64);
    const corrupt = Buffer.concat([png.subarray(0, 60), Buffer.alloc(40, 0xab), png.subarray(100)]);
    expect(await failureOf(processImage(corrupt, specs('thumbnail')))).toBe('invalid_image');
    const truncated = png.subarray(0, Math.floor(png.length / 2));
    expect(await failureOf(processImage(truncated, specs('thumbnail')))).toBe('invalid_image');
  });

  it('refuses formats that are not allowed as unsupported_content', async () => {
    const jpeg = await sharp(makePng(10, 10)).jpeg().toBuffer();
    expect(await failureOf(processImage(jpeg, specs('public')))).toBe('unsupported_content');
    expect(await failureOf(processImage(Buffer.from('not an image at all'), specs('public')))).toBe(
      'unsupported_content',
    );
  });
});
