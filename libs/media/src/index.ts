export { FINGERPRINT_BITS, hammingDistance, perceptualHash, perceptualHashOf } from './fingerprint';
export {
  applyEdit,
  buildQualitySet,
  EDITS,
  encodePicture,
  generatePicture,
  measureQuality,
  type Picture,
  type QualityRow,
  rerender,
  seededRandom,
} from './fingerprint-quality';
export { type ClipOptions, encodeClip, type ResendEdit, svgToPicture, svgToPng } from './scene';
export { variantSize, type Size } from './geometry';
export {
  DEFAULT_IMAGE_ENCODE_EFFORT,
  encodeSettingsFor,
  type ImageEncodeSettings,
  LEGACY_ENCODE_SETTINGS,
  setImageEncodeEffort,
} from './encoder';
export { decodeRgba, type RgbaPixels, variantReference } from './variant-fidelity';
export {
  configureImageProcessing,
  DEFAULT_MAX_INPUT_PIXELS,
  formatsForMimeTypes,
  type ImageFailureCode,
  ImageProcessingError,
  type ImageProcessingOptions,
  type ImageVariant,
  isImageProcessingError,
  type ProcessedImage,
  processImage,
  readImageInfo,
  type RenderedVariants,
  renderVariants,
  WEBP_MAX_SIDE,
} from './image';
export {
  extractPoster,
  InvalidVideoError,
  posterPreview,
  posterTime,
  probeVideo,
  type SniffedVideo,
  sniffVideoContainer,
  VIDEO_SNIFF_BYTES,
  type VideoProbe,
  type VideoTool,
  type VideoToolOptions,
  VideoToolTimeoutError,
  VideoToolUnavailableError,
  videoToolVersion,
} from './video';
export {
  makeSprite,
  SPRITE_LIMITS,
  type SpriteLayout,
  spriteLayout,
  spriteVtt,
  type VideoSprite,
  vttTime,
} from './video-sprite';
export {
  MEASURE_FILTERS,
  type MeasuredSignals,
  measureVideo,
  parseMeasurement,
  type Stretch,
  type StretchSummary,
  type VideoMeasurement,
  videoSignals,
} from './video-measure';
export { type MeasuredAndSprited, measureAndSprite, type PassProbe, type PassResult } from './video-pass';
export {
  BLANK_SPREAD,
  greyCopy,
  type PixelSignals,
  type RawPixels,
  SIGNAL_SIDE,
  signalsFromGrey,
  signalsOfDecoded,
} from './signals';
