/**
 * Object keys come from our own ids and names only, never from agent-supplied filenames.
 */
const SAFE_KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;

export function assertSafeKey(key: string): string {
  if (!SAFE_KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error(`unsafe storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

export const storageKeys = {
  original: (submissionId: string, extension: string) =>
    assertSafeKey(`originals/${submissionId}/original.${extension}`),
  variant: (submissionId: string, name: string) => assertSafeKey(`variants/${submissionId}/${name}.webp`),
  poster: (submissionId: string) => assertSafeKey(`variants/${submissionId}/poster.jpg`),
  /** A video's WebVTT track (the sprite's, docs/video.md "Scrubbing"). */
  track: (submissionId: string, name: string) => assertSafeKey(`variants/${submissionId}/${name}.vtt`),
};

/** Every key `storageKeys` makes starts with one of these; other writers of a bucket do not. */
const OWN_KEY_PREFIXES = ['originals/', 'variants/'] as const;

/**
 * Whether `key` is one `storageKeys` makes. Resumable (tus) partials share the originals bucket
 * under bare upload ids, and a sweep of our own unfinished writes must leave them alone.
 */
export const isOwnStorageKey = (key: string): boolean => OWN_KEY_PREFIXES.some((prefix) => key.startsWith(prefix));
