// Completing a tus upload once every byte is stored, whoever asks and whatever fails meanwhile:
// the last PATCH, a HEAD after its completion failed, a lock still held by a killed instance,
// PostgreSQL dropping the completion's connection (issue 28: a session must never refuse bytes
// while its submission waits).
import pg from 'pg';
import type { Locker } from '@tus/utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { headOffset, patch, TUS } from './tus-client';
import { useVideoHarness, type VideoHarness } from './video-harness';

/** Runs `work` while taking in a stored upload fails as if storage were down (ECONNREFUSED). */
async function whileCompletionFails(h: VideoHarness, work: () => Promise<void>): Promise<void> {
  const uploads = h.deps.videoUploads;
  const completeStored = uploads.completeStored.bind(uploads);
  uploads.completeStored = async () => {
    throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }); // storage down
  };
  try {
    await work();
  } finally {
    uploads.completeStored = completeStored;
  }
}

describe('tus: the upload is completed once, or not at all', () => {
  const video = useVideoHarness();
  let h: VideoHarness;
  let clip: Buffer;
  beforeAll(() => {
    ({ harness: h, clip } = video);
  });

  it('tus: the last PATCH stored every byte but the completion failed: the next HEAD completes it (never "all here" for media not taken in)', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    await whileCompletionFails(h, async () => {
      const last = await patch(seeded.uploadUrl, 0, clip);
      expect(last.status).toBe(503);
    });
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('waiting_for_upload');
    const head = await fetch(seeded.uploadUrl, { method: 'HEAD', headers: TUS });
    expect([head.status, head.headers.get('upload-offset')]).toEqual([200, String(clip.length)]);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
    const stored = await h.db.repos.mediaObjects.find(seeded.submissionId, 'original', 'original');
    expect(stored?.byteSize).toBe(BigInt(clip.length));
  });

  it('tus: while another request holds the upload (an instance killed mid-PATCH, for up to 6 s), HEAD and PATCH are 423 with Retry-After, never the 409 of a complete session', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    const third = Math.floor(clip.length / 3);
    expect((await patch(seeded.uploadUrl, 0, clip.subarray(0, third))).status).toBe(204);
    // The lock as a PATCH cut by a SIGKILL leaves it: held by a writer that will never answer.
    const held = h.deps.uploadLocker.newLock(seeded.uploadId);
    await held.lock(new AbortController().signal, () => undefined);
    try {
      // A HEAD answer has no body: its status alone must not say "complete" (409) for a busy lock.
      const head = await fetch(seeded.uploadUrl, { method: 'HEAD', headers: TUS });
      expect([head.status, head.headers.get('retry-after')]).toEqual([423, '1']);
      const busy = await patch(seeded.uploadUrl, third, clip.subarray(third));
      expect(busy.status).toBe(423);
      expect(await busy.json()).toMatchObject({ code: 'upload_locked' });
    } finally {
      await held.unlock();
    }
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('waiting_for_upload');
    // The holder gone, the client resumes from the offset HEAD reports and the upload completes.
    const offset = await headOffset(seeded.uploadUrl);
    expect(offset).toBe(third);
    expect((await patch(seeded.uploadUrl, offset, clip.subarray(offset))).status).toBe(204);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
  });

  it('tus: PostgreSQL drops the completion between marking the session and moving the submission: none of it commits, and the next HEAD completes it', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    const admin = new pg.Client(h.deps.settings.DATABASE_URL);
    await admin.connect();
    const transaction = h.db.transaction;
    // The session is marked in the completion's transaction; before the transition, the server
    // ends that connection (as a crash would). A completed_at without the move would refuse bytes forever.
    h.db.transaction = (work) =>
      transaction((repos) =>
        work({
          ...repos,
          submissions: {
            ...repos.submissions,
            async transition(request) {
              await admin.query(
                `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                  WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`,
              );
              return repos.submissions.transition(request);
            },
          },
        }),
      );
    try {
      expect((await patch(seeded.uploadUrl, 0, clip)).status).toBe(503);
    } finally {
      h.db.transaction = transaction;
      await admin.end();
    }
    const session = await h.db.repos.mediaUploads.findById(seeded.uploadId);
    expect([session?.completedAt, session?.submission.status]).toEqual([null, 'waiting_for_upload']);
    const head = await fetch(seeded.uploadUrl, { method: 'HEAD', headers: TUS });
    expect([head.status, head.headers.get('upload-offset')]).toEqual([200, String(clip.length)]);
    const events = await h.db.repos.submissions.events(seeded.submissionId);
    expect(events.filter((e) => e.toStatus === 'media_processing')).toHaveLength(1);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
  });

  it('tus: a HEAD while the last PATCH completes the upload waits for it and answers 409, never completing it a second time', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    const uploads = h.deps.videoUploads;
    const completeStored = uploads.completeStored.bind(uploads);
    let completions = 0;
    let started!: () => void;
    const completing = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    uploads.completeStored = async (...args) => {
      if (++completions === 1) {
        started();
        await gate; // the PATCH's completion is slow (storage, PostgreSQL)
      }
      return completeStored(...args);
    };
    try {
      const last = patch(seeded.uploadUrl, 0, clip);
      await completing;
      // The client's PATCH was cut (as by the balancer); it asks where the upload stands. The
      // PATCH holds the upload's lock: the HEAD's is the next one asked for.
      const headLocking = nextLockRequest(h.deps.uploadLocker);
      const head = fetch(seeded.uploadUrl, { method: 'HEAD', headers: TUS });
      await headLocking;
      release();
      expect((await last).status).toBe(204);
      expect((await head).status).toBe(409); // complete: the submission has moved
    } finally {
      uploads.completeStored = completeStored;
    }
    expect(completions).toBe(1);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
  });
  it('tus: the store counts the upload complete but its object is gone (a completion cut by a storage outage): HEAD reports 0 and the client sends it again, never a 500', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    await whileCompletionFails(h, async () => {
      expect((await patch(seeded.uploadUrl, 0, clip)).status).toBe(503);
    });
    const store = h.deps.tusStore;
    const read = store.read.bind(store);
    store.read = async () => {
      throw Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' });
    };
    try {
      expect(await headOffset(seeded.uploadUrl)).toBe(0);
    } finally {
      store.read = read;
    }
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('waiting_for_upload');
    expect((await patch(seeded.uploadUrl, 0, clip)).status).toBe(204);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
    const stored = await h.db.repos.mediaObjects.find(seeded.submissionId, 'original', 'original');
    expect(stored?.byteSize).toBe(BigInt(clip.length));
  });
});

/** Resolves when the next request (after this call) asks `locker` for an upload's lock. */
function nextLockRequest(locker: Locker): Promise<void> {
  const newLock = locker.newLock.bind(locker);
  return new Promise((resolve) => {
    locker.newLock = (id) => {
      locker.newLock = newLock;
      const lock = newLock(id);
      const take = lock.lock.bind(lock);
      lock.lock = (...args) => {
        resolve();
        return take(...args);
      };
      return lock;
    };
  });
}
