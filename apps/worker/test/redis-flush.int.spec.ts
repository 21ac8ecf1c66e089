import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeClip, makePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';

describe('a Redis flush loses nothing', () => {
  let h: WorkerHarness;

  beforeAll(async () => {
    h = await createWorkerHarness({ RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' });
  });
  afterAll(() => h?.cleanup());

  it(
    'submissions whose jobs vanished with Redis are found by the reconciler and finish',
    { timeout: 90_000 },
    async () => {
      // Enqueued, then Redis loses everything before any worker runs: jobs and schedulers are gone.
      const ids = await Promise.all([1, 2].map((seed) => h.seedImage(makePng(200, 150, { seed }))));
      for (const submissionId of ids) await h.producer.enqueue('image.process', { submissionId });
      await h.flushRedis();
      expect(await h.producer.jobState('image.process', { submissionId: ids[0]! })).toBe('missing');

      const runtime = await h.startRuntime();
      for (const id of ids)
        expect((await h.waitForStatus(id, ['needs_review', 'failed'], 60_000)).status).toBe('needs_review');

      // A flush while the worker runs: the scheduler comes back and keeps reconciling.
      await h.flushRedis();
      const later = await h.seedImage(makePng(120, 90, { seed: 4 }));
      expect((await h.waitForStatus(later, ['needs_review', 'failed'], 60_000)).status).toBe('needs_review');
      expect(runtime.stats.stalled).toBe(0);
      // The periodic jobs (reconcile, sweep) ran too, and none of them failed.
      expect(runtime.stats.completed).toBeGreaterThan(ids.length + 1);
      expect(runtime.stats.failed).toBe(0);
    },
  );
});

describe('a wiped Redis prefix, with work in every non-final state (docs/operations.md "Backups": Redis needs none)', () => {
  let h: WorkerHarness;
  let dir: string;

  beforeAll(async () => {
    h = await createWorkerHarness({ RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' });
    dir = await mkdtemp(join(tmpdir(), 'fd-wipe-'));
  });
  afterAll(async () => {
    await h?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(
    'every frame reaches a final or reviewable state, none is lost and none is processed twice',
    { timeout: 120_000 },
    async () => {
      // Reviewable before the wipe: processed once by a worker that is then stopped.
      const reviewed = await h.seedImage(makePng(90, 60, { seed: 21 }));
      await h.producer.enqueue('image.process', { submissionId: reviewed });
      const first = await h.startRuntime({ queues: ['image-processing'] });
      await h.waitForStatus(reviewed, ['needs_review']);
      await first.close();

      // Queued jobs (waiting, delayed) and work a killed worker was doing, all about to vanish.
      const queued = await h.seedImage(makePng(80, 60, { seed: 22 }));
      await h.producer.enqueue('image.process', { submissionId: queued });
      const neverQueued = await h.seedImage(makePng(70, 60, { seed: 23 }));
      const midway = await h.seedImage(makePng(60, 60, { seed: 24 }));
      await h.db.transition({ id: midway, to: 'media_processing', actor: { type: 'system' } });
      const video = await h.seedVideo(await readFile(makeClip(dir, 'clip.mp4', 1)));
      await h.producer.enqueue('video.process', { submissionId: video });
      const expired = await h.seedUpload(new Date(Date.now() - 1_000));
      const expiring = await h.seedUpload(new Date(Date.now() + 3_000));
      for (const submissionId of [expired, expiring]) {
        const upload = (await h.db.repos.mediaUploads.findBySubmission(submissionId))!;
        await h.producer.enqueue(
          'upload.expire',
          { submissionId, uploadId: upload.id },
          { at: new Date(Date.now() + 60_000) },
        );
      }

      await h.flushRedis();
      const keys = await h.redis.keys(`${h.settings.REDIS_PREFIX}*`);
      expect(keys).toEqual([]);

      const runtime = await h.startRuntime();
      const reviewable = [queued, neverQueued, midway, video];
      for (const id of reviewable)
        expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
      for (const id of [expired, expiring]) {
        const row = await h.waitForStatus(id, ['failed']);
        expect(row.failureCode).toBe('upload_expired');
      }
      for (const id of [reviewed, ...reviewable, expired, expiring]) {
        const events = await h.db.repos.submissions.events(id);
        const to = (status: string) => events.filter((e) => e.type === 'transition' && e.toStatus === status).length;
        // Processed once: one start, one finish (or one expiry), whatever the reconciler re-enqueued.
        expect({ id, processing: to('media_processing') <= 1, finished: to('needs_review') + to('failed') }).toEqual({
          id,
          processing: true,
          finished: 1,
        });
      }
      expect(runtime.stats.failed).toBe(0);
    },
  );
});
