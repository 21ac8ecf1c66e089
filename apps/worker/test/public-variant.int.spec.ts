import { readImageInfo } from '@framedesk/media';
import { readObject, storageKeys } from '@framedesk/storage';
import { withPublicOnPromotion } from '@framedesk/submissions';
import { makePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerHarness, exampleConfig, type WorkerHarness } from './harness';

/**
 * Issue 39: `public` (the full-resolution delivery variant) is made only for frames that are
 * delivered: on promotion (the `image.publish` job every promotion enqueues), never for a frame in
 * review or rejected.
 */
describe('the public variant is made on promotion only (worker runtime, real Redis, PostgreSQL and sharp)', () => {
  let h: WorkerHarness;
  /** Decisions committed as the API commits them: through the promotion hook. */
  let decide: (id: string, to: 'promoted' | 'rejected') => Promise<void>;

  const publicRow = (id: string) => h.db.repos.mediaObjects.find(id, 'variant', 'public');
  const publicObject = (id: string) => h.storage.stat(h.bucket, storageKeys.variant(id, 'public'));
  const variantNames = async (id: string) =>
    (await h.db.repos.mediaObjects.listForSubmission(id))
      .filter((o) => o.kind === 'variant')
      .map((o) => o.name)
      .sort();

  async function processed(width = 1280, height = 720, seed = 1): Promise<string> {
    const id = await h.seedImage(makePng(width, height, { seed }));
    await h.producer.enqueue('image.process', { submissionId: id });
    expect((await h.waitForStatus(id, ['needs_review', 'promoted', 'failed'])).status).not.toBe('failed');
    return id;
  }

  async function waitFor<T>(what: () => Promise<T | null | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await what();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`not there after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    h = await createWorkerHarness();
    await h.startRuntime({ queues: ['image-processing'] });
    const db = withPublicOnPromotion(h.db, h.producer);
    decide = async (id, to) => {
      const result = await db.transition({ id, to, actor: { type: 'reviewer' }, onlyFrom: ['needs_review'] });
      expect(result.ok).toBe(true);
    };
  });
  afterAll(() => h?.cleanup());

  it('processing makes thumbnail and preview, not public', async () => {
    const id = await processed();
    expect(await variantNames(id)).toEqual(['preview', 'thumbnail']);
    expect(await publicRow(id)).toBeNull();
    expect(await publicObject(id)).toBeNull();
  });

  it('a promoted frame gets its public at full size from the job the promotion enqueued', async () => {
    const id = await processed(1600, 900, 2);
    await decide(id, 'promoted');
    const row = await waitFor(() => publicRow(id));
    const bytes = await readObject(h.storage, row.bucket, row.key);
    expect(await readImageInfo(bytes)).toMatchObject({ format: 'webp', width: 1600, height: 900 });
    expect([row.width, row.height, Number(row.byteSize)]).toEqual([1600, 900, bytes.length]);
  });

  it('a rejected frame never gets a public object, even when the job is asked for it', async () => {
    const id = await processed(640, 480, 3);
    await decide(id, 'rejected');
    expect(await h.producer.jobState('image.publish', { submissionId: id })).toBe('missing');
    // Asked anyway (a stray job, a request): it refuses, and nothing is written.
    await h.producer.enqueue('image.publish', { submissionId: id }, { attempt: 'stray' });
    await waitFor(
      async () => (await h.producer.jobState('image.publish', { submissionId: id }, 'stray')) === 'missing',
    );
    expect(await publicRow(id)).toBeNull();
    expect(await publicObject(id)).toBeNull();
    // `media verify --repair`'s re-rendering leaves it out too.
    await h.producer.enqueue('image.rederive', { submissionId: id });
    await waitFor(async () => (await h.producer.jobState('image.rederive', { submissionId: id })) === 'missing');
    expect(await variantNames(id)).toEqual(['preview', 'thumbnail']);
    expect(await publicObject(id)).toBeNull();
  });

  it('a frame the system promotes (review not required) gets its public too', async () => {
    const other = await createWorkerHarness();
    try {
      await other.startRuntime({
        queues: ['image-processing'],
        config: await exampleConfig((c) => {
          c.approval_defaults.requires_review = false;
        }),
      });
      const id = await other.seedImage(makePng(800, 600, { seed: 4 }));
      await other.producer.enqueue('image.process', { submissionId: id });
      expect((await other.waitForStatus(id, ['promoted', 'needs_review', 'failed'])).status).toBe('promoted');
      const row = await waitFor(() => other.db.repos.mediaObjects.find(id, 'variant', 'public'));
      expect([row.width, row.height]).toEqual([800, 600]);
      // 800×600 fits the preview's box: public is preview's encode, copied without a decode.
      const preview = await other.db.repos.mediaObjects.find(id, 'variant', 'preview');
      expect(row.sha256).toBe(preview?.sha256);
    } finally {
      await other.cleanup();
    }
  });
});
