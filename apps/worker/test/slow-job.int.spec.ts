import { parseVariantName } from '@framedesk/config';
import { processImage } from '@framedesk/media';
import { makePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineJob } from '../src/jobs/job-handler';
import { JOB_HANDLERS } from '../src/jobs/registry';
import { createWorkerHarness, type WorkerHarness } from './harness';

const LOCK_SECONDS = 2;

describe('a slow image job keeps its lock', () => {
  let h: WorkerHarness;

  beforeAll(async () => {
    h = await createWorkerHarness();
  });
  afterAll(() => h?.cleanup());

  it('runs sharp work for several lock durations without a stalled event', { timeout: 90_000 }, async () => {
    const big = makePng(2400, 2400);
    const specs = ['public', 'preview', 'thumbnail', 'w2000', 'h1500', '1200x800'].map((n) => parseVariantName(n)!);
    let rounds = 0;
    // Test-only handler: real sharp work (what a huge frame costs), repeated until it has run for
    // three lock durations, then the real pipeline.
    const slowImage = defineJob({
      name: 'image.process',
      async run(payload, context) {
        const until = Date.now() + 3 * LOCK_SECONDS * 1000;
        while (Date.now() < until) {
          await processImage(big, specs);
          rounds++;
        }
        await context.deps.images.process(payload.submissionId);
      },
    });
    const runtime = await h.startRuntime({
      queues: ['image-processing'],
      settings: { WORKER_LOCK_SECONDS: LOCK_SECONDS, WORKER_CONCURRENCY: 2 },
      handlers: [slowImage, ...JOB_HANDLERS.filter((handler) => handler.name !== 'image.process')],
    });
    const id = await h.seedImage(makePng(300, 300));
    await h.producer.enqueue('image.process', { submissionId: id });
    await h.waitForStatus(id, ['needs_review', 'failed'], 80_000);

    expect(rounds).toBeGreaterThan(0);
    expect(runtime.stats.stalled).toBe(0);
    expect(runtime.stats.failed).toBe(0);
    // Completed, and so removed (removeOnComplete).
    expect(runtime.stats.completed).toBeGreaterThan(0);
    expect(await h.producer.jobState('image.process', { submissionId: id })).toBe('missing');
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('needs_review');
  });
});
