import { parseVariantName } from '@framedesk/config';
import { readImageInfo, variantSize } from '@framedesk/media';
import { readObject } from '@framedesk/storage';
import { makePng, makePngBomb } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerHarness, exampleConfig, type WorkerHarness } from './harness';

const VARIANTS = ['public', 'thumbnail', 'preview', 'w300', 'h100', '64x48'];

describe('image pipeline (worker runtime, real Redis, PostgreSQL and sharp)', () => {
  let h: WorkerHarness;

  beforeAll(async () => {
    h = await createWorkerHarness();
    await h.startRuntime({
      config: await exampleConfig((c) => {
        c.delivery.vendor_image_variants = VARIANTS;
      }),
      queues: ['image-processing'],
    });
  });
  afterAll(() => h?.cleanup());

  it('takes a PNG to needs_review with every configured variant but public stored at its size', async () => {
    const id = await h.seedImage(makePng(1600, 900));
    await h.producer.enqueue('image.process', { submissionId: id });
    const done = await h.waitForStatus(id, ['needs_review', 'failed']);
    expect(done.status).toBe('needs_review');
    expect([done.width, done.height]).toEqual([1600, 900]);

    const variants = (await h.db.repos.mediaObjects.listForSubmission(id)).filter((o) => o.kind === 'variant');
    // `public` waits for the frame's promotion (public-variant.int.spec.ts).
    expect(variants.map((v) => v.name).sort()).toEqual(VARIANTS.filter((v) => v !== 'public').sort());
    for (const variant of variants) {
      const expected = variantSize(parseVariantName(variant.name)!, { width: 1600, height: 900 });
      const bytes = await readObject(h.storage, variant.bucket, variant.key);
      const meta = await readImageInfo(bytes);
      expect({ name: variant.name, format: meta.format, width: meta.width, height: meta.height }).toEqual({
        name: variant.name,
        format: 'webp',
        ...expected,
      });
      expect(meta.hasExif).toBe(false);
      expect([variant.width, variant.height]).toEqual([expected.width, expected.height]);
      expect(Number(variant.byteSize)).toBe(bytes.length);
      expect(variant.contentType).toBe('image/webp');
    }

    const events = await h.db.repos.submissions.events(id);
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.actorType])).toEqual([
      [null, 'received', 'agent'],
      ['received', 'media_processing', 'system'],
      ['media_processing', 'needs_review', 'system'],
    ]);
  });

  it('fails a corrupt PNG and a 20000×20000 bomb with distinct codes, without retries, and keeps serving', async () => {
    const good = makePng(64, 64);
    const corrupt = Buffer.concat([good.subarray(0, 60), Buffer.alloc(40, 0xab), good.subarray(100)]);
    const corruptId = await h.seedImage(corrupt);
    const bombId = await h.seedImage(makePngBomb(20_000));
    await h.producer.enqueue('image.process', { submissionId: corruptId });
    await h.producer.enqueue('image.process', { submissionId: bombId });

    const corruptRow = await h.waitForStatus(corruptId, ['failed', 'needs_review']);
    const bombRow = await h.waitForStatus(bombId, ['failed', 'needs_review']);
    expect([corruptRow.status, corruptRow.failureCode]).toEqual(['failed', 'invalid_image']);
    expect([bombRow.status, bombRow.failureCode]).toEqual(['failed', 'image_too_large']);
    expect(corruptRow.failureMessage).toBeTruthy();
    expect(bombRow.failureMessage).toMatch(/20000/);
    // Permanent failures end the job at once: one attempt each.
    for (const id of [corruptId, bombId]) {
      expect(await h.producer.jobState('image.process', { submissionId: id })).toBe('failed');
      const job = await h.producer.queue('image-processing').getJob(`image.process__${id}`);
      expect(job?.attemptsMade).toBe(1);
    }

    const afterId = await h.seedImage(makePng(300, 200, { seed: 7 }));
    await h.producer.enqueue('image.process', { submissionId: afterId });
    expect((await h.waitForStatus(afterId, ['needs_review', 'failed'])).status).toBe('needs_review');
  });

  it('a duplicate enqueue of the same submission is harmless', async () => {
    const id = await h.seedImage(makePng(100, 100, { seed: 3 }));
    await Promise.all([1, 2, 3].map(() => h.producer.enqueue('image.process', { submissionId: id })));
    await h.waitForStatus(id, ['needs_review']);
    const events = await h.db.repos.submissions.events(id);
    expect(events.filter((e) => e.toStatus === 'needs_review')).toHaveLength(1);
  });
});

describe('requires_review: false', () => {
  let h: WorkerHarness;

  beforeAll(async () => {
    h = await createWorkerHarness();
    await h.startRuntime({
      config: await exampleConfig((c) => {
        c.approval_defaults.requires_review = false;
      }),
      queues: ['image-processing'],
    });
  });
  afterAll(() => h?.cleanup());

  it('ends promoted by the system', async () => {
    const id = await h.seedImage(makePng(200, 100));
    await h.producer.enqueue('image.process', { submissionId: id });
    const done = await h.waitForStatus(id, ['promoted', 'needs_review', 'failed']);
    expect(done.status).toBe('promoted');
    expect(done.reviewDecision).toBe('promoted');
    const events = await h.db.repos.submissions.events(id);
    expect(events.at(-1)).toMatchObject({ fromStatus: 'media_processing', toStatus: 'promoted', actorType: 'system' });
  });
});
