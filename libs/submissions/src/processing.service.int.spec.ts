import { createDatabase, type Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import type { JobName, JobPayloads, QueueProducer } from '@framedesk/queues';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireUpload, markSubmissionFailed } from './processing.service';
import { reconcilerService } from './reconciler.service';

describe('reconciler and upload expiry (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Database;
  let agentId: string;
  let channelId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolSize: 2 });
    agentId = (await db.repos.agents.create('reconcile-agent')).id;
    channelId = (await db.repos.channels.ensure('reconcile-channel')).channel.id;
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  async function seed(
    mediaType: 'image' | 'video',
    status: 'received' | 'waiting_for_upload',
    expiresAt?: Date,
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
          provider: 'vendor_stream',
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

  function fakeQueues(live: Set<string> = new Set()) {
    const enqueued: { name: JobName; submissionId: string }[] = [];
    return {
      enqueued,
      queues: {
        hasLiveJob: async (name: JobName, payload: JobPayloads[JobName]) => live.has(`${name}:${subject(payload)}`),
        enqueueRerun: async (name: JobName, payload: JobPayloads[JobName]) => {
          enqueued.push({ name, submissionId: subject(payload) });
          return 'r1';
        },
      } as Pick<QueueProducer, 'hasLiveJob' | 'enqueueRerun'>,
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

  it('fails an upload still waiting at expires_at with upload_expired, once', async () => {
    const { id, uploadId } = await seed('video', 'waiting_for_upload', new Date(Date.now() - 1000));
    expect(await expireUpload(db, id, uploadId!)).toEqual({ outcome: 'expired' });
    const row = await db.repos.submissions.findById(id);
    expect([row?.status, row?.failureCode]).toEqual(['failed', 'upload_expired']);
    expect((await expireUpload(db, id, uploadId!)).outcome).toBe('skipped');
    expect((await db.repos.submissions.events(id)).filter((e) => e.toStatus === 'failed')).toHaveLength(1);
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
