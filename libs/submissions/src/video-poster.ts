import type { Database, SimilaritySettings } from '@framedesk/db';
import { perceptualHash, posterPreview } from '@framedesk/media';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';
import { recordMediaOrDiscard } from './media-guard';

/** Name of the small WebP made from a video's poster frame. */
export const VIDEO_PREVIEW_VARIANT = 'preview';
const PREVIEW_MAX_SIDE = 640;

/** The stored preview: what the scoring hook is sent for a video. */
export interface PosterPreview {
  readonly data: Buffer;
  readonly contentType: string;
}

export interface VideoPosterDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly bucket: string;
  /** What counts as a near-duplicate when the poster's fingerprint is stored. */
  readonly nearDuplicates?: SimilaritySettings;
}

/**
 * The poster (as delivered) and its small WebP preview, stored, then recorded with the
 * fingerprint in one transaction behind the erasure guard. Null: the frame was erased or
 * purged meanwhile, and what was stored for it is deleted again.
 */
export function videoPosterStore(deps: VideoPosterDeps) {
  const { bucket } = deps;
  return async function storePoster(
    submissionId: string,
    poster: Buffer,
    width: number | null,
    height: number | null,
    contentType = 'image/jpeg',
  ): Promise<PosterPreview | null> {
    const preview = await posterPreview(poster, PREVIEW_MAX_SIDE);
    const hash = await perceptualHash(poster).catch(() => null); // undecodable: no fingerprint
    const posterKey = storageKeys.poster(submissionId);
    const previewKey = storageKeys.variant(submissionId, VIDEO_PREVIEW_VARIANT);
    const written = [
      { bucket, key: posterKey },
      { bucket, key: previewKey },
    ];
    const storedPoster = await deps.storage.put(bucket, posterKey, poster, { contentType });
    const storedPreview = await deps.storage.put(bucket, previewKey, preview.data, { contentType: 'image/webp' });
    const recorded = await recordMediaOrDiscard(deps, submissionId, written, async (repos) => {
      if (hash !== null)
        await repos.fingerprints.save({
          submissionId,
          perceptualHash: hash,
          ...(deps.nearDuplicates ? { settings: deps.nearDuplicates } : {}),
        });
      await repos.mediaObjects.upsert({
        submissionId,
        kind: 'poster',
        name: 'poster',
        bucket,
        key: posterKey,
        contentType,
        byteSize: storedPoster.byteSize,
        sha256: storedPoster.sha256,
        width,
        height,
      });
      await repos.mediaObjects.upsert({
        submissionId,
        kind: 'variant',
        name: VIDEO_PREVIEW_VARIANT,
        bucket,
        key: previewKey,
        contentType: 'image/webp',
        byteSize: storedPreview.byteSize,
        sha256: storedPreview.sha256,
        width: preview.width,
        height: preview.height,
      });
    });
    return recorded ? { data: preview.data, contentType: 'image/webp' } : null;
  };
}

export type StorePoster = ReturnType<typeof videoPosterStore>;
