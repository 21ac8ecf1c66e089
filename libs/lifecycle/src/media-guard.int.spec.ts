// Issue 38, point 8: an erasure between a worker's read and its write. The worker's storage (an
// image's variants) or its thumbnail fetch (a video's poster) erases the frame at that moment;
// the worker must commit no media rows or fingerprint for it, and delete what it wrote.
import { type ObjectStorage, storageKeys } from '@framedesk/storage';
import { exampleProjectConfig, makeNoisePng } from '@framedesk/testing';
import { describe, expect, it } from 'vitest';
import { erasureService } from './erasure.service';

import { BUCKET, db, provider, seed, storage, useMediaLifecycle } from './media-lifecycle.test-support';
import { imageProcessingService } from '@framedesk/submissions';
import { createVideoService } from '@framedesk/submissions';

useMediaLifecycle();

const erase = (submissionId: string) =>
  erasureService({ db, storage, provider, actor: 'cli:dpo', replayableHours: 24 }).erase({ submissionId });

/** Which of `keys` exist in storage. */
const existing = async (keys: readonly string[]) =>
  (await Promise.all(keys.map(async (k) => ((await storage.stat(BUCKET, k)) ? k : null)))).filter(Boolean);

describe('an erasure while a worker makes the media (point 8)', () => {
  it('image: variants written after the erasure are deleted, and no variant row or fingerprint is committed', async () => {
    const config = await exampleProjectConfig();
    const frame = await seed('guard-image', 'received');
    await storage.put(BUCKET, storageKeys.original(frame.id, 'png'), makeNoisePng(320, 180), {
      contentType: 'image/png',
    });
    // Drop the seed's own variants: what exists after the run is only what the worker wrote.
    for (const key of frame.keys.filter((k) => k.startsWith('variants/'))) await storage.delete(BUCKET, key);
    let erased = false;
    const racing: ObjectStorage = {
      ...storage,
      async put(bucket, key, body, options) {
        // The worker read the frame and rendered its variants; the erasure lands before its first write.
        if (!erased && key.startsWith('variants/')) {
          erased = true;
          await erase(frame.id);
        }
        return storage.put(bucket, key, body, options);
      },
    };
    const outcome = await imageProcessingService({ db, storage: racing, config }).process(frame.id);
    expect(erased).toBe(true);
    expect(outcome).toMatchObject({ outcome: 'skipped' });
    expect(await db.repos.mediaObjects.listForSubmission(frame.id)).toEqual([]);
    expect(await db.repos.fingerprints.find(frame.id)).toBeNull();
    const variantKeys = config.delivery.vendor_image_variants.map((name) => storageKeys.variant(frame.id, name));
    expect(await existing([storageKeys.original(frame.id, 'png'), ...variantKeys])).toEqual([]);
    expect(await db.repos.submissions.findById(frame.id)).toMatchObject({
      status: 'failed',
      failureCode: 'erased',
      erasedAt: expect.any(Date),
    });
  });

  it('video: a poster fetched after the erasure is deleted, and no poster, preview, playback row or fingerprint is committed', async () => {
    const config = await exampleProjectConfig();
    const frame = await seed('guard-video', 'media_processing', { cloudflare: true });
    for (const key of frame.keys) await storage.delete(BUCKET, key); // the seed's poster
    await db.repos.mediaVerify.deleteMediaRows(frame.id);
    const video = createVideoService({
      db,
      storage,
      provider,
      queues: { enqueue: async () => undefined },
      config: { ...config, storage: { ...config.storage, vendor_originals_bucket: BUCKET } },
      // The worker asked for the provider's thumbnail; the erasure lands while it downloads.
      fetch: (async () => {
        await erase(frame.id);
        return new Response(new Uint8Array(makeNoisePng(64, 36)), { headers: { 'content-type': 'image/png' } });
      }) as typeof fetch,
    });
    const outcome = await video.applyProviderNotification({
      providerRef: frame.uid!,
      video: {
        state: 'ready',
        thumbnailUrl: 'https://stream.example/thumb.png',
        playbackUrl: `https://stream.example/${frame.uid}/manifest/video.m3u8`,
        durationSeconds: 3,
        width: 64,
        height: 36,
      },
    });
    expect(outcome).toBe('skipped');
    expect(await db.repos.mediaObjects.listForSubmission(frame.id)).toEqual([]);
    expect(await db.repos.fingerprints.find(frame.id)).toBeNull();
    expect(await existing([storageKeys.poster(frame.id), storageKeys.variant(frame.id, 'preview')])).toEqual([]);
  });
});
