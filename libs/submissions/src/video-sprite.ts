import type { Database } from '@framedesk/db';
import type { VideoSprite } from '@framedesk/media';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';
import { recordMediaOrDiscard } from './media-guard';

/** The thumbnail sprite's variant (WebP) and its WebVTT track's (docs/video.md, "Scrubbing"). */
export const VIDEO_SPRITE_VARIANT = 'sprite';
export const VIDEO_SPRITE_TRACK_VARIANT = 'sprite_vtt';

/**
 * Stores a video's sprite and its track and records both as variants (served like the poster's
 * preview, `/media/<id>/sprite` and `/media/<id>/sprite_vtt`), behind the erasure guard. False:
 * the frame was erased or purged meanwhile, and what was stored is deleted again.
 */
export function videoSpriteStore(deps: {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly bucket: string;
}) {
  const { bucket } = deps;
  return async function storeSprite(submissionId: string, sprite: VideoSprite): Promise<boolean> {
    const spriteKey = storageKeys.variant(submissionId, VIDEO_SPRITE_VARIANT);
    const trackKey = storageKeys.track(submissionId, VIDEO_SPRITE_TRACK_VARIANT);
    const track = Buffer.from(sprite.vtt, 'utf8');
    const storedSprite = await deps.storage.put(bucket, spriteKey, sprite.webp, { contentType: 'image/webp' });
    const storedTrack = await deps.storage.put(bucket, trackKey, track, { contentType: 'text/vtt' });
    const written = [
      { bucket, key: spriteKey },
      { bucket, key: trackKey },
    ];
    return recordMediaOrDiscard(deps, submissionId, written, async (repos) => {
      await repos.mediaObjects.upsert({
        submissionId,
        kind: 'variant',
        name: VIDEO_SPRITE_VARIANT,
        bucket,
        key: spriteKey,
        contentType: 'image/webp',
        byteSize: storedSprite.byteSize,
        sha256: storedSprite.sha256,
        width: sprite.columns * sprite.tileWidth,
        height: sprite.rows * sprite.tileHeight,
      });
      await repos.mediaObjects.upsert({
        submissionId,
        kind: 'variant',
        name: VIDEO_SPRITE_TRACK_VARIANT,
        bucket,
        key: trackKey,
        contentType: 'text/vtt',
        byteSize: storedTrack.byteSize,
        sha256: storedTrack.sha256,
        width: null,
        height: null,
      });
    });
  };
}

export type StoreSprite = ReturnType<typeof videoSpriteStore>;
