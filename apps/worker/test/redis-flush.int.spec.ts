import { makePng } from '@framedesk/testing';
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
