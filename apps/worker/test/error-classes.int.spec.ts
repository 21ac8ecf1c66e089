import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkerStatusStore, intakeStats, jobIdFor, type ServerFault, workersOverview } from '@framedesk/queues';
import type { ObjectStorage } from '@framedesk/storage';
import { makeClip, makePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';

const FAST = { serverFaultBackoff: { baseMs: 200, maxMs: 400 } };

/** Real fs storage whose writes fail with `code` (a full disk, a dropped mount) the first `times` times. */
/** Storage whose writes fail with `code` until `heal()`: a full disk, an unreachable store. */
function failingWrites(storage: ObjectStorage, code: string): { storage: ObjectStorage; heal: () => void } {
  let failing = true;
  return {
    storage: {
      ...storage,
      async put(...args) {
        if (failing) throw Object.assign(new Error(`${code}: simulated on write`), { code, syscall: 'write' });
        return storage.put(...args);
      },
    },
    heal: () => {
      failing = false;
    },
  };
}

/**
 * Where a submission ends for each kind of job error: the media's own faults end `failed` with a
 * stable code and sentence; the server's faults (missing tool, storage, database, disk) leave it
 * where it is until the fault is gone, then it finishes.
 */
describe('job error classes (worker runtime, real PostgreSQL, Redis, ffmpeg)', () => {
  let h: WorkerHarness;
  let dir: string;
  let clip: Buffer;
  const faultOf = async (name: 'image.process' | 'video.process', id: string): Promise<ServerFault | null> => {
    const store = createWorkerStatusStore(h.redis, h.settings.REDIS_PREFIX);
    const queue = name === 'image.process' ? 'image-processing' : 'video-processing';
    return store.findFault(queue, jobIdFor(name, { submissionId: id }));
  };
  async function waitFor<T>(what: string, read: () => Promise<T | null | undefined>, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const everFailed = async (id: string) =>
    (await h.db.repos.submissions.events(id)).some((e) => e.toStatus === 'failed');

  beforeAll(async () => {
    h = await createWorkerHarness();
    dir = await mkdtemp(join(tmpdir(), 'fd-error-classes-'));
    const path = makeClip(dir, 'clip.mp4', 1, '160x120');
    clip = await readFile(path);
  });
  afterAll(async () => {
    await h?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('media fault: a file that is no video ends failed with invalid_video and a stable sentence (no tool output, no temp path)', async () => {
    const runtime = await h.startRuntime({ queues: ['video-processing'] });
    const id = await h.seedVideo(Buffer.from('this is not a video\n'.repeat(200)));
    await h.producer.enqueue('video.process', { submissionId: id });
    const done = await h.waitForStatus(id, ['failed', 'needs_review']);
    expect(done.failureCode).toBe('invalid_video');
    expect(done.failureMessage).toBe('The upload is not a readable video.');
    // The job ends failed (not retried) just after the submission is recorded.
    await waitFor('the job to end failed', async () =>
      (await h.producer.jobState('video.process', { submissionId: id })) === 'failed' ? true : null,
    );
    await runtime.close();
  });

  it('server fault: ffprobe gone while a video waits holds the job (never failed) and it finishes once ffprobe is back', async () => {
    const ffprobe = join(dir, 'ffprobe');
    await symlink(execFileSync('sh', ['-c', 'command -v ffprobe']).toString().trim(), ffprobe);
    const runtime = await h.startRuntime({
      ...FAST,
      queues: ['video-processing'],
      settings: { FFPROBE_PATH: ffprobe, WORKER_READINESS_INTERVAL_SECONDS: 3600 },
    });
    expect(runtime.ready()).toBe(true);
    await unlink(ffprobe); // after the readiness check passed: the job itself meets the missing tool
    const id = await h.seedVideo(clip);
    await h.producer.enqueue('video.process', { submissionId: id });
    const fault = await waitFor('a recorded fault', async () => {
      const f = await faultOf('video.process', id);
      return f && f.tries >= 2 ? f : null;
    });
    expect(fault.reason).toContain(`ffprobe not found at ${ffprobe}`);
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('media_processing');

    await runtime.checkReadiness();
    expect(runtime.readiness()?.queues['video-processing']).toEqual({
      status: 'unavailable',
      reason: expect.stringContaining(`ffprobe not found at ${ffprobe}`),
    });
    await symlink(execFileSync('sh', ['-c', 'command -v ffprobe']).toString().trim(), ffprobe);
    await runtime.checkReadiness();
    expect(runtime.ready()).toBe(true);
    expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
    expect(await everFailed(id)).toBe(false);
    // The record is cleared once the job has completed, just after the status it set.
    await waitFor('the fault record to be cleared', async () =>
      (await faultOf('video.process', id)) === null ? true : null,
    );
    await runtime.close();
  });

  it('server fault: a full disk on the storage holds the image in media_processing, then it finishes', async () => {
    const disk = failingWrites(h.storage, 'ENOSPC');
    const runtime = await h.startRuntime({ ...FAST, queues: ['image-processing'], storage: disk.storage });
    const id = await h.seedImage(makePng(64, 48));
    await h.producer.enqueue('image.process', { submissionId: id });
    const fault = await waitFor('a recorded fault', () => faultOf('image.process', id));
    expect(fault.reason).toContain('disk full');
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('media_processing');
    // The ops page lists the held job with its reason and age.
    const overview = await workersOverview(h.producer, createWorkerStatusStore(h.redis, h.settings.REDIS_PREFIX));
    expect(overview.server_faults).toContainEqual(
      expect.objectContaining({ queue: 'image-processing', submission_id: id, reason: 'disk full [ENOSPC]' }),
    );
    // Held through several tries (however many writes each makes), never failed; then space is freed.
    await waitFor('three tries', async () => (runtime.stats.serverFaults >= 3 ? true : null));
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('media_processing');
    disk.heal();
    expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
    expect(await everFailed(id)).toBe(false);
    await runtime.close();
  });

  it('server fault on a new image from the intake: handed to the image queue, held there, then it finishes', async () => {
    const disk = failingWrites(h.storage, 'ENOSPC');
    const runtime = await h.startRuntime({ ...FAST, queues: ['image-processing'], storage: disk.storage });
    const id = await h.seedImage(makePng(64, 48));
    await h.producer.submitImage(id, { backlog: 1 });
    const store = createWorkerStatusStore(h.redis, h.settings.REDIS_PREFIX);
    const held = await waitFor('held in the image queue', async () =>
      (await workersOverview(h.producer, store)).server_faults.find((f) => f.submission_id === id),
    );
    expect(held).toMatchObject({ queue: 'image-processing', reason: 'disk full [ENOSPC]' });
    // The intake's entry is acknowledged: the image queue has the image now.
    expect(await intakeStats(h.redis, h.settings.REDIS_PREFIX)).toMatchObject({ waiting: 0, running: 0 });
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('media_processing');
    disk.heal();
    expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
    expect(await everFailed(id)).toBe(false);
    await runtime.close();
  });

  it('server fault: storage unreachable (connection refused) is held the same way, never failed', async () => {
    const store = failingWrites(h.storage, 'ECONNREFUSED');
    const runtime = await h.startRuntime({ ...FAST, queues: ['image-processing'], storage: store.storage });
    const id = await h.seedImage(makePng(64, 48));
    await h.producer.enqueue('image.process', { submissionId: id });
    expect((await waitFor('a recorded fault', () => faultOf('image.process', id))).reason).toContain(
      'connection refused',
    );
    store.heal();
    expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
    expect(await everFailed(id)).toBe(false);
    await runtime.close();
  });

  it('unknown error: one nothing explains is held like a server fault past its five attempts, listed on ops, never failed', async () => {
    let broken = true;
    const storage: ObjectStorage = {
      ...h.storage,
      async get(...args) {
        if (broken) throw new Error('storage said something nobody expected');
        return h.storage.get(...args);
      },
    };
    const runtime = await h.startRuntime({ ...FAST, queues: ['image-processing'], storage });
    const id = await h.seedImage(makePng(50, 50));
    await h.producer.enqueue('image.process', { submissionId: id }); // production options: 5 attempts
    const fault = await waitFor('seven held tries (more than the five attempts)', async () => {
      const f = await faultOf('image.process', id);
      return f && f.tries >= 7 ? f : null;
    });
    expect(fault.reason).toBe('unclassified error (Error: storage said something nobody expected)');
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('media_processing');
    const overview = await workersOverview(h.producer, createWorkerStatusStore(h.redis, h.settings.REDIS_PREFIX));
    expect(overview.server_faults).toContainEqual(
      expect.objectContaining({ queue: 'image-processing', submission_id: id, reason: fault.reason }),
    );
    broken = false;
    expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
    expect(await everFailed(id)).toBe(false);
    await runtime.close();
  });

  it('unknown error in a video job is held the same way (no processing_error), then the video finishes', async () => {
    let broken = true;
    const storage: ObjectStorage = {
      ...h.storage,
      async get(...args) {
        if (broken) throw new RangeError('an unexplained failure');
        return h.storage.get(...args);
      },
    };
    const runtime = await h.startRuntime({ ...FAST, queues: ['video-processing'], storage });
    const id = await h.seedVideo(clip);
    await h.producer.enqueue('video.process', { submissionId: id });
    const fault = await waitFor('six held tries', async () => {
      const f = await faultOf('video.process', id);
      return f && f.tries >= 6 ? f : null;
    });
    expect(fault.reason).toBe('unclassified error (RangeError: an unexplained failure)');
    expect(await everFailed(id)).toBe(false);
    broken = false;
    expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
    expect(await everFailed(id)).toBe(false);
    await runtime.close();
  });

  it('server fault: PostgreSQL unreachable keeps the queue unconsumed (the job waits, the submission stays received)', async () => {
    const down = await h.startRuntime({
      queues: ['image-processing'],
      settings: { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/framedesk', WORKER_READINESS_INTERVAL_SECONDS: 2 },
    });
    expect(down.ready()).toBe(false);
    expect(down.readiness()?.queues['image-processing']?.reason).toContain('PostgreSQL not reachable at 127.0.0.1:1');
    const id = await h.seedImage(makePng(64, 48));
    await h.producer.enqueue('image.process', { submissionId: id });
    // Another readiness check with the job waiting (the moment it would start consuming), not a pause.
    await down.checkReadiness();
    expect(down.ready()).toBe(false);
    expect(await h.producer.jobState('image.process', { submissionId: id })).toBe('waiting');
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('received');
    await down.close();
    await h.startRuntime({ queues: ['image-processing'] });
    expect((await h.waitForStatus(id, ['needs_review', 'failed'])).status).toBe('needs_review');
  });
});
