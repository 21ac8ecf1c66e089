import type { Size } from './geometry';

/**
 * How variants are encoded (WebP): the one place the encoder's settings live. `processImage`
 * takes them as an option; the worker passes `encodeSettingsFor(IMAGE_ENCODE_EFFORT)`.
 */
export interface ImageEncodeSettings {
  /** WebP quality, 1–100. */
  readonly quality: number;
  /** libwebp's method, 0 (fastest) – 6 (smallest files), for every variant. */
  readonly effort: number;
  /** sharp's `smartSubsample`: sharper chroma edges at some CPU and bytes. */
  readonly smartSubsample: boolean;
  /**
   * Variants of at least `minPixels` pixels are encoded at `effort` here instead (large variants
   * cost most of the encoding time; small ones cost little whatever the effort).
   */
  readonly large?: { readonly minPixels: number; readonly effort: number };
  /**
   * Two variants of one size made from the same pixels (`public` and `preview` of a frame that
   * fits the preview's box) are encoded once and the bytes shared.
   */
  readonly shareSameSize: boolean;
}

/** The settings every variant was made with until issue 39 (sharp's default effort). */
export const LEGACY_ENCODE_SETTINGS: ImageEncodeSettings = {
  quality: 82,
  effort: 4,
  smartSubsample: false,
  shareSameSize: false,
};

/**
 * The default effort, chosen by `npm run bench -- --only=variants` (docs/performance.md,
 * "2026-11-27: variants and pipeline"): over the corpus (photo-like scenes, text cards, charts,
 * screenshots) effort 2 cost 0.55× the CPU per image of effort 4 (today's until then, sharp's
 * default; 0.50–0.69 per class over two runs), for at most 1.05× the bytes and an SSIM at most
 * 0.0028 below effort 4's, in every class and variant. Effort 1 and 0 cost 1.2–1.4× the bytes and
 * up to 0.013 of SSIM (libwebp leaves out its rate-distortion search below 2); smartSubsample
 * doubles the CPU. The rest of the saving is making `public` only for promoted frames
 * (libs/submissions, public-variant.ts): 0.49× per submitted frame with 40 % rejected.
 */
export const DEFAULT_IMAGE_ENCODE_EFFORT = 2;

let processEffort = DEFAULT_IMAGE_ENCODE_EFFORT;

/** The effort this process encodes at when `processImage` is given no settings (IMAGE_ENCODE_EFFORT, set at boot). */
export function setImageEncodeEffort(effort: number): void {
  if (!Number.isInteger(effort) || effort < 0 || effort > 6) throw new RangeError('WebP effort is 0–6');
  processEffort = effort;
}

/** Quality 82 at `effort` (default: this process's, IMAGE_ENCODE_EFFORT) for every variant. */
export function encodeSettingsFor(effort: number = processEffort): ImageEncodeSettings {
  return { quality: LEGACY_ENCODE_SETTINGS.quality, effort, smartSubsample: false, shareSameSize: true };
}

/** sharp's `webp()` options for a variant of `size`. */
export function webpOptions(
  settings: ImageEncodeSettings,
  size: Size,
): { quality: number; effort: number; smartSubsample: boolean } {
  const large = settings.large && size.width * size.height >= settings.large.minPixels;
  return {
    quality: settings.quality,
    effort: large ? settings.large!.effort : settings.effort,
    smartSubsample: settings.smartSubsample,
  };
}
