import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { perceptualHash } from '@framedesk/media';
import type { JobName, JobPayloads, QueueProducer } from '@framedesk/queues';
import { storageKeys } from '@framedesk/storage';
import { makeNoisePng } from '@framedesk/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { expireUpload, imageProcessingService, markSubmissionFailed } from './processing.service';
import { reconcilerService } from './reconciler.service';
import { processingVariantNames } from './public-variant';
import { useSubmissionsDatabase } from './database.test-support';
import { useImagePipeline } from './image-pipeline.test-support';

describe('reconciler and upload expiry (real PostgreSQL)', () => {
  const test = useSubmissionsDatabase('reconcile');
  let db: Database;
  let agentId: string;
  let channelId: string;
  beforeAll(() => {
    ({ db, agentId, channelId } = test);
  });

  async function seed(
    mediaType: 'image' | 'video',
    status: 'received' | 'waiting_for_upload',
    expiresAt?: Date,
    provider = 'vendor_stream',
  ): Promise<{ id: string; uploadId?: string }> {
    const id = newId('submission');
    const uploadId = expiresAt ? newId('upload') : undefined;
    await db.transaction(async (repos) => {
      await repos.submissions.create(
        { id, status, mediaType, agentId, channelId, date: '20261122', metadata: {}, visibility: 'draft' },
        { type: 'agent', id: agentId },
      );
      if (uploadId && expiresAt) {
        await repos.mediaUploads.create({
          id: uploadId,
          submissionId: id,
          provider,
          providerRef: null,
          uploadUrl: 'http://127.0.0.1/upload',
          protocol: 'basic',
          byteSize: 10,
          contentType: 'video/mp4',
          filename: 'clip.mp4',
          tokenHash: null,
          expiresAt,
        });
      }
    });
    return { id, ...(uploadId ? { uploadId } : {}) };
  }

  const subject = (payload: JobPayloads[JobName]) => ('submissionId' in payload ? payload.submissionId : '');

  function fakeQueues(live: Set<string> = new Set(), intakeOldestEntryAt: number | null = null) {
    const enqueued: { name: JobName; submissionId: string }[] = [];
    return {
      enqueued,
      queues: {
        hasLiveJob: async (name: JobName, payload: JobPayloads[JobName]) => live.has(`${name}:${subject(payload)}`),
        enqueueRerun: async (name: JobName, payload: JobPayloads[JobName]) => {
          enqueued.push({ name, submissionId: subject(payload) });
          return 'r1';
        },
        intakeOldestEntryAt: async () => intakeOldestEntryAt,
      } as Pick<QueueProducer, 'hasLiveJob' | 'enqueueRerun' | 'intakeOldestEntryAt'>,
    };
  }

  it('re-enqueues stuck submissions without a live job, and only those', async () => {
    const lostImage = await seed('image', 'received');
    const liveImage = await seed('image', 'received');
    const video = await seed('video', 'waiting_for_upload', new Date(Date.now() + 3600_000));
    await db.transition({ id: video.id, to: 'media_processing', actor: { type: 'system' } });
    const expired = await seed('video', 'waiting_for_upload', new Date(Date.now() - 1000));
    const finished = await seed('image', 'received');
    await markSubmissionFailed(db, finished.id, 'invalid_image', 'broken');

    const { queues, enqueued } = fakeQueues(new Set([`image.process:${liveImage.id}`]));
    const later = () => new Date(Date.now() + 120_000);
    const report = await reconcilerService({ db, queues, reconcileAfterSeconds: 60, now: later }).run();

    expect(enqueued).toEqual(
      expect.arrayContaining([
        { name: 'image.process', submissionId: lostImage.id },
        { name: 'video.process', submissionId: video.id },
        { name: 'upload.expire', submissionId: expired.id },
      ]),
    );
    expect(enqueued).toHaveLength(3);
    expect(report.live).toBe(1);

    // Fresh submissions are left to their own jobs.
    const again = fakeQueues();
    await reconcilerService({ db, queues: again.queues, reconcileAfterSeconds: 60 }).run();
    expect(again.enqueued.filter((e) => e.name !== 'upload.expire')).toEqual([]);
  });

  it('leaves a stale image the intake may still hold, and re-runs one the intake has passed', async () => {
    const image = await seed('image', 'received');
    // Stale (past 60 s), within the intake's trust (5 × 60 s).
    const later = () => new Date(Date.now() + 200_000);
    const mine = (e: { submissionId: string }) => e.submissionId === image.id;
    // The intake's oldest entry is as old as the frame: it may be the frame's own, still to come.
    const holding = fakeQueues(new Set(), Date.now());
    await reconcilerService({ db, queues: holding.queues, reconcileAfterSeconds: 60, now: later }).run();
    expect(holding.enqueued.filter(mine)).toEqual([]);
    // Its oldest entry came ten minutes after the frame: the frame's entry was taken, or never added.
    const passed = fakeQueues(new Set(), Date.now() + 600_000);
    await reconcilerService({ db, queues: passed.queues, reconcileAfterSeconds: 60, now: later }).run();
    expect(passed.enqueued.filter(mine)).toEqual([{ name: 'image.process', submissionId: image.id }]);
  });

  it('re-runs a stale image past 5 × RECONCILE_AFTER_SECONDS whatever the intake’s oldest entry says', async () => {
    // A flooding agent's backlog (or one entry renewed for ever) keeps the intake's oldest entry
    // older than the frame for as long as it lasts: the frame's own entry may have been lost.
    const image = await seed('image', 'received');
    const mine = (e: { submissionId: string }) => e.submissionId === image.id;
    const oldestEntry = Date.now() - 3_600_000;
    const within = fakeQueues(new Set(), oldestEntry);
    const at = (seconds: number) => () => new Date(Date.now() + seconds * 1000);
    await reconcilerService({ db, queues: within.queues, reconcileAfterSeconds: 60, now: at(290) }).run();
    expect(within.enqueued.filter(mine)).toEqual([]);
    const past = fakeQueues(new Set(), oldestEntry);
    await reconcilerService({ db, queues: past.queues, reconcileAfterSeconds: 60, now: at(310) }).run();
    expect(past.enqueued.filter(mine)).toEqual([{ name: 'image.process', submissionId: image.id }]);
  });

  it('fails an upload still waiting at expires_at with upload_expired, once', async () => {
    const { id, uploadId } = await seed('video', 'waiting_for_upload', new Date(Date.now() - 1000));
    expect(await expireUpload(db, id, uploadId!)).toEqual({ outcome: 'expired' });
    const row = await db.repos.submissions.findById(id);
    expect([row?.status, row?.failureCode]).toEqual(['failed', 'upload_expired']);
    expect((await expireUpload(db, id, uploadId!)).outcome).toBe('skipped');
    expect((await db.repos.submissions.events(id)).filter((e) => e.toStatus === 'failed')).toHaveLength(1);
  });

  it("deletes an expired local session's partial bytes in the expiry run; until then they count against the quota", async () => {
    const spoolDir = await mkdtemp(join(tmpdir(), 'fd-spool-'));
    try {
      const open = () => db.repos.mediaUploads.openForAgent(agentId, new Date());
      const before = await open();
      const expired = await seed('video', 'waiting_for_upload', new Date(Date.now() - 1000), 'local');
      const uploadId = expired.uploadId!;
      await writeFile(join(spoolDir, `${uploadId}.0a1b2c.basic`), Buffer.alloc(10));
      await writeFile(join(spoolDir, 'upl_someoneelse.0a1b2c.basic'), Buffer.alloc(10));
      // Past expires_at, its bytes not deleted yet: still counted.
      expect(await open()).toEqual({ sessions: before.sessions + 1, bytes: before.bytes + 10 });
      const discarded: string[] = [];
      const partials = { db, spoolDir, discardTus: async (id: string) => void discarded.push(id) };
      expect(await expireUpload(db, expired.id, uploadId, new Date(), partials)).toEqual({ outcome: 'expired' });
      expect(discarded).toEqual([uploadId]);
      expect(await readdir(spoolDir)).toEqual(['upl_someoneelse.0a1b2c.basic']);
      expect((await db.repos.mediaUploads.findBySubmission(expired.id))?.partialsDeletedAt).toBeInstanceOf(Date);
      expect(await open()).toEqual(before);

      // The upload door saw the expiry first (failed, bytes kept): the job deletes them all the same.
      const door = await seed('video', 'waiting_for_upload', new Date(Date.now() - 1000), 'local');
      await db.transition({
        id: door.id,
        to: 'failed',
        actor: { type: 'system' },
        patch: { failureCode: 'upload_expired', failureMessage: 'expired' },
      });
      expect(await open()).toEqual({ sessions: before.sessions + 1, bytes: before.bytes + 10 });
      expect((await expireUpload(db, door.id, door.uploadId!, new Date(), partials)).outcome).toBe('skipped');
      expect(discarded).toEqual([uploadId, door.uploadId]);
      expect(await open()).toEqual(before);
    } finally {
      await rm(spoolDir, { recursive: true, force: true });
    }
  });

  it('leaves an upload alone before expires_at, and one whose media arrived', async () => {
    const early = await seed('video', 'waiting_for_upload', new Date(Date.now() + 60_000));
    expect((await expireUpload(db, early.id, early.uploadId!)).outcome).toBe('early');
    const arrived = await seed('video', 'waiting_for_upload', new Date(Date.now() - 1000));
    await db.transition({ id: arrived.id, to: 'media_processing', actor: { type: 'system' } });
    expect((await expireUpload(db, arrived.id, arrived.uploadId!)).outcome).toBe('skipped');
    expect((await db.repos.submissions.findById(arrived.id))?.status).toBe('media_processing');
  });
});

describe('image processing (real PostgreSQL, fs storage)', () => {
  const test = useImagePipeline('processing');
  const seedImage = (png: Buffer) => test.seedImage(png);

  it('an original gone from storage ends failed with processing_error at once, naming the cause (no retries)', async () => {
    const { db, storage, config } = test;
    const bucket = config.storage.vendor_originals_bucket;
    const id = await seedImage(makeNoisePng(16, 16));
    await storage.delete(bucket, storageKeys.original(id, 'png'));
    const result = await imageProcessingService({ db, storage, config }).process(id);
    expect(result).toMatchObject({ outcome: 'failed', code: 'processing_error' });
    const row = await db.repos.submissions.findById(id);
    expect([row?.status, row?.failureCode, row?.failureMessage]).toEqual([
      'failed',
      'processing_error',
      'The original image is missing from storage.',
    ]);
  });

  it('stores every variant row and the fingerprint of the original, as perceptualHash gives it', async () => {
    const { db, storage, config } = test;
    const png = makeNoisePng(320, 180);
    const id = await seedImage(png);
    const result = await imageProcessingService({ db, storage, config }).process(id);
    expect(result.outcome).toBe('needs_review');
    const variants = (await db.repos.mediaObjects.listForSubmission(id)).filter((o) => o.kind === 'variant');
    // Every configured variant but `public`, which is made once the frame is promoted (public-variant.ts).
    expect(variants.map((v) => v.name)).toEqual(processingVariantNames(config).sort());
    for (const v of variants) {
      expect(v.key).toBe(storageKeys.variant(id, v.name));
      expect([v.contentType, v.width !== null, v.sha256?.length]).toEqual(['image/webp', true, 64]);
      expect(Number(v.byteSize)).toBeGreaterThan(0);
    }
    expect((await db.repos.fingerprints.find(id))?.perceptualHash).toBe(await perceptualHash(png));
  });

  it('upsertMany writes several rows in one statement; a retry rewrites the same rows', async () => {
    const { db, config } = test;
    const bucket = config.storage.vendor_originals_bucket;
    const id = await seedImage(makeNoisePng(16, 16));
    const row = (name: string, byteSize: number) => ({
      submissionId: id,
      kind: 'variant' as const,
      name,
      bucket,
      key: storageKeys.variant(id, name),
      contentType: 'image/webp',
      byteSize,
      width: 10,
      height: null,
      sha256: null,
    });
    expect(await db.repos.mediaObjects.upsertMany([row('a', 1), row('b', 2)])).toBe(2);
    const first = (await db.repos.mediaObjects.listForSubmission(id)).filter((o) => o.kind === 'variant');
    // Racing writers of the same rows: each waits for the other and replaces them.
    await Promise.all([
      db.repos.mediaObjects.upsertMany([row('a', 3), row('b', 4)]),
      db.repos.mediaObjects.upsertMany([row('a', 3), row('b', 4), row('b', 4)]),
    ]);
    const again = (await db.repos.mediaObjects.listForSubmission(id)).filter((o) => o.kind === 'variant');
    expect(again.map((o) => [o.id, o.name, Number(o.byteSize), o.width, o.height, o.sha256])).toEqual([
      [first[0]!.id, 'a', 3, 10, null, null],
      [first[1]!.id, 'b', 4, 10, null, null],
    ]);
    expect(again.map((o) => o.createdAt)).toEqual(first.map((o) => o.createdAt));
    expect(await db.repos.mediaObjects.upsertMany([])).toBe(0);
  });
});
