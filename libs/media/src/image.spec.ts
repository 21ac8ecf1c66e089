import { createHash } from 'node:crypto';
import { parseVariantName, settingsSchema, type VariantSpec } from '@framedesk/config';
import { makePng, makePngBomb } from '@framedesk/testing';
import sharp from 'sharp';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { perceptualHash } from './fingerprint';
import { encodePicture, generatePicture } from './fingerprint-quality';
import { DEFAULT_IMAGE_ENCODE_EFFORT, encodeSettingsFor, LEGACY_ENCODE_SETTINGS } from './encoder';
import { isImageProcessingError, processImage } from './image';
import type * as SharpLoader from './sharp-loader';

/** Every `sharp(input)` libs/media makes, so a test can tell how often an encoded image is opened. */
const opened: { input: unknown; options: Record<string, unknown> | undefined }[] = [];
vi.mock('./sharp-loader', async (importOriginal) => {
  const original = await importOriginal<typeof SharpLoader>();
  return {
    ...original,
    loadSharp: async () => {
      const real = await original.loadSharp();
      const counting = (input: unknown, options?: Record<string, unknown>) => {
        opened.push({ input, options });
        return real(input as Buffer, options);
      };
      return Object.assign(counting, real);
    },
  };
});
beforeEach(() => {
  opened.length = 0;
});

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

  it('carries the fingerprint perceptualHash gives for the same bytes, whatever the format', async () => {
    const picture = await encodePicture(generatePicture(11, 320, 240));
    const rgba = await sharp(picture).ensureAlpha(0.5).png().toBuffer();
    const inputs: Record<string, Buffer> = {
      png: picture,
      'png with alpha': rgba,
      'palette png': await sharp(picture).png({ palette: true }).toBuffer(),
      'grey png': await sharp(picture).greyscale().png().toBuffer(),
      '16-bit png': await sharp(picture).toColourspace('rgb16').png().toBuffer(),
      'png with orientation 2': await sharp(picture).png().withMetadata({ orientation: 2 }).toBuffer(),
      gif: await sharp(picture).gif().toBuffer(),
      jpeg: await sharp(picture).jpeg().toBuffer(),
      'jpeg with orientation 6': await sharp(picture).jpeg().withMetadata({ orientation: 6 }).toBuffer(),
      webp: await sharp(picture).webp().toBuffer(),
    };
    const formats = ['png', 'gif', 'jpeg', 'webp'];
    for (const [name, input] of Object.entries(inputs)) {
      const result = await processImage(input, specs('thumbnail'), { allowedFormats: formats });
      expect({ name, hash: result.perceptualHash }).toEqual({ name, hash: await perceptualHash(input) });
    }
  });

  it('decodes an 8-bit PNG once for every variant and the fingerprint', async () => {
    const input = await encodePicture(generatePicture(12, 640, 360));
    opened.length = 0;
    const result = await processImage(input, specs('public', 'thumbnail', 'preview'));
    // The header read (no pixels) and the one decode; variants and fingerprint start from its raw pixels.
    const ofInput = opened.filter((o) => o.input === input);
    expect(ofInput.map((o) => o.options?.['limitInputPixels'] === false)).toEqual([true, false]);
    expect(opened.filter((o) => o.input !== input && !o.options?.['raw'])).toEqual([]);
    expect(result.perceptualHash).toBe(await perceptualHash(input));
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

  describe('encoder settings', () => {
    const input = () => encodePicture(generatePicture(21, 640, 360));
    const digest = (variants: readonly { name: string; data: Buffer }[]) =>
      variants.map((v) => `${v.name}:${createHash('sha256').update(v.data).digest('hex')}`);

    it('gives the same bytes for the same input and settings, run after run', async () => {
      const png = await input();
      for (const encode of [encodeSettingsFor(), encodeSettingsFor(0), LEGACY_ENCODE_SETTINGS]) {
        const first = await processImage(png, specs('public', 'thumbnail', 'preview'), { encode });
        const second = await processImage(Buffer.from(png), specs('public', 'thumbnail', 'preview'), { encode });
        expect(digest(second.variants)).toEqual(digest(first.variants));
      }
    });

    it('encodes at the effort it is given (IMAGE_ENCODE_EFFORT), 2 by default', async () => {
      const png = await input();
      const at = async (effort?: number) =>
        (await processImage(png, specs('preview'), { encode: encodeSettingsFor(effort) })).variants[0]!.data;
      expect(settingsSchema.properties.IMAGE_ENCODE_EFFORT.default).toBe(DEFAULT_IMAGE_ENCODE_EFFORT);
      expect((await at()).equals(await at(DEFAULT_IMAGE_ENCODE_EFFORT))).toBe(true);
      expect((await at(6)).length).toBeLessThan((await at(0)).length);
    });

    it('encodes public once when it is the size of preview, and shares the bytes', async () => {
      const png = await input(); // 640×360 fits the preview's 1024 box
      opened.length = 0;
      const result = await processImage(png, specs('public', 'preview', 'thumbnail'));
      const [publicVariant, preview] = result.variants;
      expect(publicVariant!.data).toBe(preview!.data);
      const webps = opened.filter((o) => (o.options as { raw?: unknown } | undefined)?.raw !== undefined);
      // Decoded pixels opened for preview and thumbnail (and the fingerprint), not for public twice;
      // the policy signals sample the decoded pixels themselves (signals.ts greyCopy).
      expect(webps.length).toBe(3);
    });
  });
});
