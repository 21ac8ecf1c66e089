// Issue 38, points 9–12: the races of retention and erasure, each made deterministic by an
// injected storage, database or provider that acts at the one moment the race needs.
import type { Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';
import type { VideoProvider } from '@framedesk/video-provider';
import { describe, expect, it } from 'vitest';
import { mediaVerifyService } from './media-verify.service';
import {
  BUCKET,
  db,
  erasure,
  fake,
  provider,
  purge,
  seed,
  seedEach,
  seedReplayableResponse,
  setRetention,
  storage,
  stored,
  useMediaLifecycle,
} from './media-lifecycle.test-support';

useMediaLifecycle();

describe('retention purge against a racing retry and a corrected retention (issue 38, points 9 and 10)', () => {
  it("marks a frame before it deletes its media: an operator's retry racing the purge is refused, and no row points at a deleted object", async () => {
    const frame = await seed('purge-retry', 'failed');
    await setRetention('purge-retry', { failed: '0d' });
    let retry: Awaited<ReturnType<Database['transition']>> | undefined;
    // The operator's retry (review's POST …/retry: failed → received) arrives between the
    // purge's first look and its first deletion.
    const racing: ObjectStorage = {
      ...storage,
      async delete(bucket, key) {
        retry ??= await db.transition({
          id: frame.id,
          to: 'received',
          actor: { type: 'reviewer', id: 'rev_operator' },
          onlyFrom: ['failed'],
          reason: 'retry',
        });
        return storage.delete(bucket, key);
      },
    };
    const report = await purge({ storage: racing }).run({ maxMs: 60_000 });
    expect(retry).toMatchObject({ ok: false, current: 'failed', purged: true });
    expect(report).toMatchObject({ purged: 1, objects: 3 });
    expect(await db.repos.submissions.findById(frame.id)).toMatchObject({
      status: 'failed',
      purgedAt: expect.any(Date),
    });
    expect(await db.repos.mediaObjects.listForSubmission(frame.id)).toEqual([]);
    expect(await stored(frame.keys)).toBe(0);
    const events = await db.repos.submissions.events(frame.id);
    expect(events.filter((e) => e.actorType === 'reviewer')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'media_purged', data: { objects: 3 } });
  });

  it("reads the channel's period again at each batch: a retention corrected during a run stops it at the next batch", async () => {
    const frames = await seedEach([1, 2, 3, 4].map(() => () => seed('purge-typo', 'promoted')));
    await setRetention('purge-typo', { promoted: '0d' }); // the typo
    let deletes = 0;
    const correcting: ObjectStorage = {
      ...storage,
      async delete(bucket, key) {
        // The operator corrects it while the first batch is being deleted.
        if (++deletes === 1) await setRetention('purge-typo', { promoted: 'never' });
        return storage.delete(bucket, key);
      },
    };
    const report = await purge({ batchSize: 1, storage: correcting }).run({ maxMs: 60_000 });
    expect(report).toMatchObject({ purged: 1, batches: 1, complete: true });
    const purgedAt = await Promise.all(frames.map(async (f) => (await db.repos.submissions.findById(f.id))!.purgedAt));
    expect(purgedAt.filter(Boolean)).toHaveLength(1);
    expect(await stored(frames.slice(1).flatMap((f) => f.keys))).toBe(9);
  });
});

describe('erasure, racing and audited', () => {
  it("erases a video's file name everywhere, the upload's replayable response, and an open tus upload's partial file (point 11)", async () => {
    const agent = await db.repos.agents.create('erase-video');
    const video = await seed('erase-video', 'waiting_for_upload', {
      agent: agent.id,
      metadata: { title: 'Beach', filename: 'me-at-the-beach.mp4' },
    });
    const upload = (await db.repos.mediaUploads.findBySubmission(video.id))!;
    await db.transaction(async (repos) => {
      // An open resumable upload at our own provider (the seed's is Cloudflare's).
      await repos.mediaUploads.create({
        id: newId('upload'),
        submissionId: (await seed('erase-video', 'received', { agent: agent.id })).id,
        provider: 'local',
        providerRef: null,
        uploadUrl: 'http://localhost/uploads/x',
        protocol: 'tus',
        byteSize: 100,
        contentType: 'video/mp4',
        filename: 'me-again.mp4',
        tokenHash: null,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
    });
    // POST /v1/media-uploads answers with the session: its id is the upload's, and it holds the file name.
    const apiKeyId = await seedReplayableResponse(agent.id, {
      prefix: 'fd_live_erasev',
      key: 'upload-1',
      status: 201,
      body: { id: upload.id, submission_id: video.id, filename: 'me-at-the-beach.mp4' },
    });
    const dropped: string[] = [];
    const report = await erasure({ dropPartial: async (id) => void dropped.push(id) }).erase({
      agentSlug: 'erase-video',
    });
    expect(report).toMatchObject({ submissions: 2, partials: 1, pending: 0 });
    const row = (await db.repos.submissions.findById(video.id))!;
    expect(row.metadata).not.toHaveProperty('filename');
    expect(JSON.stringify(row)).not.toContain('beach');
    expect(await db.repos.idempotency.find(apiKeyId, 'upload-1')).toBeNull();
    const local = await db.repos.mediaUploads.findById(dropped[0]!);
    expect(local).toMatchObject({ protocol: 'tus', filename: '' });
    expect(local!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("deletes what a worker committed between the erasure's first read and its stop (point 11)", async () => {
    const agent = await db.repos.agents.create('erase-racing');
    const frame = await seed('erase-racing', 'media_processing', { agent: agent.id });
    const lateKey = storageKeys.variant(frame.id, 'public');
    let committed = false;
    // The worker commits a variant (object, then row) right after the erasure read what the frame holds.
    const racingDb: Database = {
      ...db,
      async transition(request, options) {
        if (!committed) {
          committed = true;
          await storage.put(BUCKET, lateKey, Buffer.from('late variant'), { contentType: 'image/webp' });
          await db.repos.mediaObjects.upsert({
            submissionId: frame.id,
            kind: 'variant',
            name: 'public',
            bucket: BUCKET,
            key: lateKey,
            contentType: 'image/webp',
            byteSize: 12,
          });
        }
        return db.transition(request, options);
      },
    };
    const report = await erasure({ db: racingDb }).erase({ submissionId: frame.id });
    expect(committed).toBe(true);
    expect(report).toMatchObject({ submissions: 1, objects: 4, stopped: 1 });
    expect(await stored([...frame.keys, lateKey])).toBe(0);
    expect(await db.repos.mediaObjects.listForSubmission(frame.id)).toEqual([]);
  });

  it('keeps a frame whose provider copy could not be deleted pending, and the retention job retries it until it is gone (point 11)', async () => {
    const agent = await db.repos.agents.create('erase-refused');
    const video = await seed('erase-refused', 'promoted', { agent: agent.id, cloudflare: true });
    const refusing: VideoProvider = {
      ...provider,
      name: provider.name,
      deleteVideo: async () => {
        throw new Error('Cloudflare answered 503');
      },
    };
    const report = await erasure({ provider: refusing }).erase({ submissionId: video.id });
    expect(report).toMatchObject({ submissions: 1, providerVideos: 0, pending: 1 });
    expect(fake.videos.has(video.uid!)).toBe(true);
    expect(await db.repos.submissions.findById(video.id)).toMatchObject({
      erasedAt: expect.any(Date),
      deletionPendingSince: expect.any(Date),
      deletionError: expect.stringContaining('Cloudflare answered 503'),
    });
    expect(await db.repos.retention.pendingCount()).toMatchObject({ frames: 1 });

    // A retention run retries it (whatever the channel's retention): now the provider answers.
    expect((await purge().run({ maxMs: 60_000 })).providerVideos).toBe(1);
    expect(fake.videos.has(video.uid!)).toBe(false);
    expect(await db.repos.submissions.findById(video.id)).toMatchObject({
      deletionPendingSince: null,
      deletionError: null,
    });
    expect(await db.repos.retention.pendingCount()).toMatchObject({ frames: 0 });
  });

  it('records the request before it starts and its progress after each batch, and names the operator on frames it fails (point 12)', async () => {
    const agent = await db.repos.agents.create('erase-audit');
    const frames = await seedEach(
      (['needs_review', 'rejected', 'received'] as const).map(
        (status) => () => seed('erase-audit', status, { agent: agent.id }),
      ),
    );
    let seenAtFirstDeletion: string[] | undefined;
    const watching: ObjectStorage = {
      ...storage,
      async delete(bucket, key) {
        seenAtFirstDeletion ??= (await db.repos.accounts.events('agent', agent.id)).map((e) => e.action);
        return storage.delete(bucket, key);
      },
    };
    await erasure({ storage: watching, batchSize: 2 }).erase({ agentSlug: 'erase-audit' });
    expect(seenAtFirstDeletion).toEqual(['media_erasure_requested']);
    const audit = await db.repos.accounts.events('agent', agent.id);
    expect(audit.map((e) => e.action)).toEqual([
      'media_erasure_requested',
      'media_erasure_progress',
      'media_erasure_progress',
      'media_erased',
    ]);
    expect(audit[1]).toMatchObject({
      actor: 'cli:dpo',
      data: { request: { agent: 'erase-audit' }, batch: 1, submissions: 2 },
    });
    expect(audit[3]).toMatchObject({ data: { submissions: 3 } });
    for (const frame of [frames[0]!, frames[2]!]) {
      expect(await db.repos.submissions.findById(frame.id)).toMatchObject({
        status: 'failed',
        failureCode: 'erased',
        failureMessage: expect.stringContaining('cli:dpo'),
      });
      const failed = (await db.repos.submissions.events(frame.id)).find((e) => e.toStatus === 'failed');
      expect(failed).toMatchObject({ actorId: 'cli:dpo', data: { operator: 'cli:dpo' } });
    }
  });
});

describe('media verify --repair, audited (point 12)', () => {
  it('records what it deletes before deleting it, and refuses a grace under an hour', async () => {
    const orphanKey = storageKeys.variant(newId('submission'), 'preview');
    await storage.put(BUCKET, orphanKey, Buffer.alloc(100, 1), { contentType: 'image/webp' });
    // A purged frame still holding its media (a purge stopped between its mark and its deletions).
    const purged = await seed('verify-audit', 'rejected');
    await db.transaction((repos) =>
      repos.retention.markPurged([purged.id], {
        statuses: ['rejected'],
        at: new Date(),
        actor: { type: 'system' },
        reason: 'test',
      }),
    );
    const verify = mediaVerifyService({
      db,
      storage,
      bucket: BUCKET,
      imageVariants: [],
      queues: { enqueue: async () => undefined },
      actor: 'cli:ops',
      now: () => new Date(Date.now() + 2 * 86_400_000), // every object is two days old
    });
    await expect(verify.run({ repair: true, graceMs: 59 * 60_000 })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('at least 1h'),
    });
    expect(await stored([orphanKey])).toBe(1);

    const report = await verify.run({ repair: true, graceMs: 3_600_000 });
    expect(report.repair).toMatchObject({ purged_media_deleted: 3 });
    expect(report.repair!.orphans_deleted).toBeGreaterThanOrEqual(1);
    expect(await stored([orphanKey, ...purged.keys])).toBe(0);
    const orphans = await db.repos.accounts.events('bucket', BUCKET);
    expect(orphans).toEqual([
      expect.objectContaining({
        action: 'orphans_deleted',
        actor: 'cli:ops',
        data: expect.objectContaining({ keys: expect.arrayContaining([orphanKey]), grace_ms: 3_600_000 }),
      }),
    ]);
    expect(await db.repos.accounts.events('submission', purged.id)).toEqual([
      expect.objectContaining({
        action: 'purged_media_deleted',
        actor: 'cli:ops',
        data: { keys: expect.arrayContaining(purged.keys.map((k) => `${BUCKET}/${k}`)) },
      }),
    ]);
  });
});
