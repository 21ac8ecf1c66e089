import { availableParallelism } from 'node:os';
import type { VariantSpec } from '@framedesk/config';
import { withSpan } from '@framedesk/observability';
import type { Metadata } from 'sharp';
import { hashPipeline, perceptualHash } from './fingerprint';
import { loadSharp, setSharpThreads } from './sharp-loader';
import { type PixelSignals, type RawPixels, signalsOfDecoded, signalsOfPipeline } from './signals';
import { type Size, variantSize } from './geometry';
import { type ImageEncodeSettings, encodeSettingsFor, webpOptions } from './encoder';

/** Why an image cannot be processed; `code` is the submission's failure code. */
export type ImageFailureCode = 'invalid_image' | 'image_too_large' | 'unsupported_content';

/** A permanent problem with the input: retrying cannot help. */
export class ImageProcessingError extends Error {
  constructor(
    readonly code: ImageFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'ImageProcessingError';
  }
}

export function isImageProcessingError(value: unknown): value is ImageProcessingError {
  return value instanceof ImageProcessingError;
}

/**
 * Decoded pixels up to this size are held once and every variant is made from them (one decode
 * per image); a larger image is decoded once per variant instead, so memory stays bounded.
 * 64 MiB: a 4K RGBA frame is 33 MB.
 */
export const DECODE_ONCE_MAX_BYTES = 64 * 1024 * 1024;

/** 100 MP: far above any frame we expect, far below what would exhaust a worker's memory. */
export const DEFAULT_MAX_INPUT_PIXELS = 100_000_000;
/** The largest side WebP can encode. */
export const WEBP_MAX_SIDE = 16_383;

export interface ImageProcessingOptions {
  readonly maxInputPixels?: number;
  /** sharp format names accepted as input, e.g. `png`; default: png only. */
  readonly allowedFormats?: readonly string[];
  /** How variants are encoded; default `encodeSettingsFor()` (encoder.ts). */
  readonly encode?: ImageEncodeSettings;
  /** False: no fingerprint (`perceptualHash` is null), for variants of a frame already processed. */
  readonly fingerprint?: boolean;
}

export interface ImageVariant {
  readonly name: string;
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly byteSize: number;
  readonly contentType: 'image/webp';
}

export interface ProcessedImage {
  /** Dimensions after orientation. */
  readonly width: number;
  readonly height: number;
  readonly format: string;
  readonly variants: readonly ImageVariant[];
  /**
   * The picture's 64-bit dHash, made from the same decoded pixels as the variants: equal to
   * `perceptualHash(input)`, without decoding the original a second time.
   */
  readonly perceptualHash: bigint;
  /** What a review policy reads from the pixels (signals.ts), from the same decoded pixels. */
  readonly signals: PixelSignals;
}

/** Variants made later for a processed frame (its `public`): no fingerprint. */
export type RenderedVariants = Omit<ProcessedImage, 'perceptualHash' | 'signals'>;

/** Maps allowed MIME types (`media.allowed_image_mime_types`) to sharp's format names. */
export function formatsForMimeTypes(mimeTypes: readonly string[]): string[] {
  const known: Record<string, string> = {
    'image/png': 'png',
    'image/jpeg': 'jpeg',
    'image/webp': 'webp',
    'image/gif': 'gif',
    'image/avif': 'heif',
  };
  return mimeTypes.map((m) => known[m.toLowerCase()]).filter((f): f is string => Boolean(f));
}

/**
 * libvips runs on libuv's thread pool, never on the event loop, so BullMQ can renew job locks
 * while an image is decoded. On small machines one libvips thread per image keeps concurrent
 * jobs from oversubscribing the cores; the cache only helps repeated reads of one file.
 */
export function configureImageProcessing(threads = availableParallelism() <= 2 ? 1 : 0): void {
  setSharpThreads(threads);
}

function classify(error: unknown): ImageProcessingError {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message))
    return new ImageProcessingError('image_too_large', 'The image has more pixels than allowed.');
  if (/unsupported image format/i.test(message))
    return new ImageProcessingError('unsupported_content', 'The file is not a supported image.');
  return new ImageProcessingError('invalid_image', `The image could not be decoded: ${message.split('\n')[0]}`);
}

/**
 * Whether the fingerprint made from the decoded pixels is bit for bit `perceptualHash(input)`, so
 * the original need not be decoded again for it. Checked (image.spec.ts) for 8-bit PNG and GIF
 * without an EXIF orientation. Otherwise the bytes are hashed as before: JPEG and WebP shrink on
 * load (a cheap partial decode, with different pixels), 16-bit pixels were cut to 8 bits in the
 * decode, and sharp mirrors an oriented image after its resize, so a bit or more can differ.
 */
function hashFromPixelsMatches(metadata: Metadata): boolean {
  return (
    (metadata.format === 'png' || metadata.format === 'gif') &&
    metadata.depth === 'uchar' &&
    (metadata.orientation === undefined || metadata.orientation === 1)
  );
}

/**
 * Fully decodes `input` under a pixel limit, strictly (corrupt data fails), applies its EXIF
 * orientation and makes each variant as WebP without metadata, and the perceptual fingerprint
 * from the same pixels. Throws ImageProcessingError for
 * bad input; anything else it throws is unexpected.
 */
export async function processImage(
  input: Buffer,
  variants: readonly VariantSpec[],
  options: Omit<ImageProcessingOptions, 'fingerprint'> = {},
): Promise<ProcessedImage> {
  const image = await makeVariants(input, variants, options);
  return image as ProcessedImage;
}

/** `processImage` without the fingerprint: variants of a frame already processed (its `public`). */
export function renderVariants(
  input: Buffer,
  variants: readonly VariantSpec[],
  options: Omit<ImageProcessingOptions, 'fingerprint'> = {},
): Promise<RenderedVariants> {
  return makeVariants(input, variants, { ...options, fingerprint: false });
}

async function makeVariants(
  input: Buffer,
  variants: readonly VariantSpec[],
  options: ImageProcessingOptions,
): Promise<RenderedVariants & { perceptualHash?: bigint; signals?: PixelSignals }> {
  const maxPixels = options.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  const allowed = options.allowedFormats ?? ['png'];
  const sharp = await loadSharp();
  const open = () => sharp(input, { limitInputPixels: maxPixels, failOn: 'error', sequentialRead: true }).autoOrient();

  let metadata: Metadata;
  try {
    // Header only (no pixels decoded), so the limit below can say what the image declares.
    metadata = await sharp(input, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch (error) {
    throw classify(error);
  }
  if (!allowed.includes(metadata.format)) {
    throw new ImageProcessingError('unsupported_content', `Images of format ${metadata.format} are not accepted.`);
  }
  const source: Size = metadata.autoOrient ?? { width: metadata.width, height: metadata.height };
  // Header check first: a bomb is refused before a single pixel is decompressed.
  if (source.width * source.height > maxPixels) {
    throw new ImageProcessingError(
      'image_too_large',
      `The image is ${source.width}×${source.height}; at most ${maxPixels} pixels are allowed.`,
    );
  }
  if (Math.max(source.width, source.height) > WEBP_MAX_SIDE) {
    throw new ImageProcessingError(
      'image_too_large',
      `The image is ${source.width}×${source.height}; a side may be at most ${WEBP_MAX_SIDE} pixels.`,
    );
  }

  // Decode once, strictly (a corrupt file fails here), into raw pixels every variant starts from.
  let decode = open;
  let decodedPixels: RawPixels | null = null;
  if (source.width * source.height * (metadata.channels ?? 4) <= DECODE_ONCE_MAX_BYTES) {
    let decoded: { data: Buffer; info: { width: number; height: number; channels: 1 | 2 | 3 | 4 } };
    try {
      decoded = await withSpan('sharp.decode', { 'image.width': source.width, 'image.height': source.height }, () =>
        open().raw().toBuffer({ resolveWithObject: true }),
      );
    } catch (error) {
      throw classify(error);
    }
    const { data, info } = decoded;
    decodedPixels = { data, width: info.width, height: info.height, channels: info.channels };
    decode = () => sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  }

  const encode = options.encode ?? encodeSettingsFor();
  const results: ImageVariant[] = [];
  // Two variants of one size and the same pixels (`public` and `preview` of a frame that fits in
  // the preview's box) are encoded once.
  const bySize = new Map<string, ImageVariant>();
  // One at a time, so at most one encoder's buffers are alive besides the decoded pixels.
  for (const spec of variants) {
    const target = variantSize(spec, source);
    const uncropped = spec.kind !== 'cover' || (target.width === source.width && target.height === source.height);
    const sizeKey = `${target.width}x${target.height}`;
    const same = uncropped && encode.shareSameSize ? bySize.get(sizeKey) : undefined;
    if (same) {
      results.push({ ...same, name: spec.name });
      continue;
    }
    let pipeline = decode();
    if (spec.kind === 'cover') pipeline = pipeline.resize({ width: target.width, height: target.height, fit: 'cover' });
    else if (target.width !== source.width || target.height !== source.height) {
      pipeline = pipeline.resize({ width: target.width, height: target.height, fit: 'fill' });
    }
    try {
      const { data, info } = await withSpan(
        'sharp.variant',
        { 'framedesk.variant': spec.name, 'image.width': target.width, 'image.height': target.height },
        () => pipeline.webp(webpOptions(encode, target)).toBuffer({ resolveWithObject: true }),
      );
      const variant: ImageVariant = {
        name: spec.name,
        data,
        width: info.width,
        height: info.height,
        byteSize: data.length,
        contentType: 'image/webp',
      };
      results.push(variant);
      if (uncropped) bySize.set(sizeKey, variant);
    } catch (error) {
      throw classify(error);
    }
  }
  const image = { width: source.width, height: source.height, format: metadata.format, variants: results };
  if (options.fingerprint === false) return image;
  let hash: bigint;
  try {
    hash = await withSpan('image.fingerprint', {}, () =>
      decode !== open && hashFromPixelsMatches(metadata)
        ? hashPipeline(decode())
        : perceptualHash(input, { maxInputPixels: maxPixels }),
    );
  } catch (error) {
    throw classify(error);
  }
  let signals: PixelSignals;
  try {
    signals = await withSpan('image.signals', {}, async () =>
      decodedPixels ? signalsOfDecoded(decodedPixels) : signalsOfPipeline(decode()),
    );
  } catch (error) {
    throw classify(error);
  }
  return { ...image, perceptualHash: hash, signals };
}

/** What an encoded image declares in its header (no pixels decoded). */
export async function readImageInfo(
  input: Buffer,
): Promise<{ format: string; width: number; height: number; hasExif: boolean }> {
  const sharp = await loadSharp();
  const metadata = await sharp(input, { limitInputPixels: false }).metadata();
  return {
    format: metadata.format,
    width: metadata.width,
    height: metadata.height,
    hasExif: metadata.exif !== undefined,
  };
}
