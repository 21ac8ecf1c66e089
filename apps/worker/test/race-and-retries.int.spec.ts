import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createDatabase } from '@framedesk/db';
import { imageProcessingService, processingVariantNames } from '@framedesk/submissions';
import { makePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerHarness, exampleConfig, type WorkerHarness } from './harness';

const transitions = async (h: WorkerHarness, id: string) =>
  (await h.db.repos.submissions.events(id))
    .filter((e) => e.type === 'transition')
    .map((e) => `${e.fromStatus}->${e.toStatus}`);

describe('racing workers', () => {
  let h: WorkerHarness;

  beforeAll(async () => {
    h = await createWorkerHarness();
  });
  afterAll(() => h?.cleanup());

  it('two workers racing on one submission produce one set of variants and one event per transition', async () => {
    const config = await exampleConfig();
    const id = await h.seedImage(makePng(800, 600));
    // Two independent pipelines with their own connections, as two worker processes would have.
    const dbA = createDatabase({ url: h.settings.DATABASE_URL, poolSize: 2 });
    const dbB = createDatabase({ url: h.settings.DATABASE_URL, poolSize: 2 });
    try {
      const results = await Promise.all([
        imageProcessingService({ db: dbA, storage: h.storage, config }).process(id),
        imageProcessingService({ db: dbB, storage: h.storage, config }).process(id),
      ]);
      expect(results.map((r) => r.outcome).sort()).toEqual(['needs_review', 'skipped']);
    } finally {
      await Promise.all([dbA.close(), dbB.close()]);
    }
    expect(await transitions(h, id)).toEqual([
      'null->received',
      'received->media_processing',
      'media_processing->needs_review',
    ]);
    const variants = (await h.db.repos.mediaObjects.listForSubmission(id)).filter((o) => o.kind === 'variant');
    // `public` waits for a promotion (public-variant.int.spec.ts).
    const made = processingVariantNames(config);
    expect(variants.map((v) => v.name).sort()).toEqual([...made].sort());
    const files = await readdir(join(h.settings.STORAGE_FS_ROOT, h.bucket, 'variants', id));
    expect(files.sort()).toEqual(made.map((n) => `${n}.webp`).sort());
  });

  it('two worker runtimes given two jobs for one submission (a re-run beside the original) record each transition once', async () => {
    const [a, b] = [
      await h.startRuntime({ queues: ['image-processing'] }),
      await h.startRuntime({ queues: ['image-processing'] }),
    ];
    const ids = await Promise.all([1, 2, 3].map((seed) => h.seedImage(makePng(400, 300, { seed }))));
    for (const submissionId of ids) {
      await h.producer.enqueue('image.process', { submissionId });
      await h.producer.enqueueRerun('image.process', { submissionId });
    }
    for (const id of ids) {
      await h.waitForStatus(id, ['needs_review']);
      expect(await transitions(h, id)).toEqual([
        'null->received',
        'received->media_processing',
        'media_processing->needs_review',
      ]);
    }
    await Promise.all([a.close(), b.close()]);
  });
});
