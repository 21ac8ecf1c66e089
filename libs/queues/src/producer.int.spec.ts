import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from './connection';
import { createQueueProducer, type QueueProducer, RERUN_PRIORITY } from './producer';
import { oldestWaitingSince } from './queue-age';
import { jobIdFor, originOf } from './registry';
import { createQueueWorker } from './worker';

/** A producer on a Redis key prefix of its own, for the tests of one describe block. */
function ownProducer(): { redis: Redis; queues: QueueProducer; prefix: string } {
  const prefix = createTestRedisPrefix();
  const own = { prefix: prefix.prefix } as { redis: Redis; queues: QueueProducer; prefix: string };
  beforeAll(() => {
    own.redis = createRedis(testRedisUrl(), 'worker');
    own.queues = createQueueProducer(own.redis, prefix.prefix);
  });
  afterAll(async () => {
    await own.queues.close();
    own.redis.disconnect();
    await prefix.cleanup();
  });
  return own;
}

describe('queue producer (real Redis)', () => {
  const own = ownProducer();

  it('derives job ids from the submission, so a duplicate enqueue is a no-op', async () => {
    const payload = { submissionId: 'sub_dup' };
    await own.queues.enqueue('image.process', payload);
    await own.queues.enqueue('image.process', payload);
    expect(await own.queues.queue('image-processing').getJobCounts('waiting')).toEqual({ waiting: 1 });
    expect(await own.queues.jobState('image.process', payload)).toBe('waiting');
    expect(jobIdFor('image.process', payload)).toBe('image.process__sub_dup');
  });

  it('tells live jobs from missing, completed and failed ones, re-runs included', async () => {
    const payload = { submissionId: 'sub_rerun' };
    expect(await own.queues.hasLiveJob('image.process', payload)).toBe(false);
    const attempt = await own.queues.enqueueRerun('image.process', payload);
    expect(await own.queues.hasLiveJob('image.process', payload)).toBe(true);
    const job = await own.queues.queue('image-processing').getJob(jobIdFor('image.process', payload, attempt));
    expect(job?.opts.priority).toBe(RERUN_PRIORITY);
    await job!.remove();
    expect(await own.queues.hasLiveJob('image.process', payload)).toBe(false);
  });

  it('sees the latest attempt-suffixed job of any producer (e.g. a delayed status poll) as live', async () => {
    const payload = { submissionId: 'sub_poll' };
    await own.queues.enqueue('video.process', payload, { attempt: 'poll-1', at: new Date(Date.now() + 60_000) });
    expect(await own.queues.jobState('video.process', payload)).toBe('missing');
    expect(await own.queues.hasLiveJob('video.process', payload)).toBe(true);
  });

  it('delays a job until `at`', async () => {
    const payload = { submissionId: 'sub_later', uploadId: 'upl_later' };
    await own.queues.enqueue('upload.expire', payload, { at: new Date(Date.now() + 60_000) });
    expect(await own.queues.jobState('upload.expire', payload)).toBe('delayed');
    expect(await own.queues.isLive('upload.expire', payload)).toBe(true);
  });

  it('declares one scheduler per periodic job however often it is declared', async () => {
    await own.queues.schedule('maintenance.reconcile', 30_000);
    await own.queues.schedule('maintenance.reconcile', 30_000);
    await own.queues.schedule('maintenance.sweep', 3_600_000);
    const schedulers = await own.queues.queue('maintenance').getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual(['maintenance.reconcile', 'maintenance.sweep']);
    // One pending run per scheduler (the first runs at once), not one per declaration.
    const counts = (await own.queues.counts()).maintenance;
    expect((counts['waiting'] ?? 0) + (counts['delayed'] ?? 0)).toBe(2);
  });
});

describe('queue gauges: oldest waiting job, workers; job origin (real Redis)', () => {
  const own = ownProducer();
  const timestampOf = async (name: 'image.process' | 'video.process', submissionId: string) =>
    (await own.queues
      .queue(name === 'image.process' ? 'image-processing' : 'video-processing')
      .getJob(jobIdFor(name, { submissionId })))!.timestamp;

  it('is null for every queue while nothing waits, and a delayed job is not waiting', async () => {
    await own.queues.enqueue(
      'upload.expire',
      { submissionId: 'sub_later', uploadId: 'upl_1' },
      { at: new Date(Date.now() + 3_600_000) },
    );
    expect(await own.queues.oldestWaitingSeconds()).toEqual({
      'image-processing': null,
      'video-processing': null,
      'upload-expiry': null,
      maintenance: null,
    });
  });

  it('finds the oldest of the FIFO list and of the prioritised set, not the next to run', async () => {
    // Prioritised: the first frame of a busy agent (priority 5) waits behind a later one (1).
    await own.queues.enqueue('image.process', { submissionId: 'sub_old' }, { priority: 5 });
    await new Promise((r) => setTimeout(r, 30));
    await own.queues.enqueue('image.process', { submissionId: 'sub_new' }, { priority: 1 });
    // FIFO: no priority.
    await own.queues.enqueue('video.process', { submissionId: 'sub_v1' });
    await new Promise((r) => setTimeout(r, 30));
    await own.queues.enqueue('video.process', { submissionId: 'sub_v2' });

    const now = Date.now() + 60_000;
    const ages = await own.queues.oldestWaitingSeconds(now);
    expect(ages['image-processing']).toBe((now - (await timestampOf('image.process', 'sub_old'))) / 1000);
    expect(ages['video-processing']).toBe((now - (await timestampOf('video.process', 'sub_v1'))) / 1000);
    expect(ages['upload-expiry']).toBeNull();

    // Bounded: looking at one prioritised job only sees the next to run.
    const [image] = await oldestWaitingSince(own.redis, [own.queues.queue('image-processing')], 1);
    expect(image).toBe(await timestampOf('image.process', 'sub_new'));
  });

  it("carries the request's id in the job's data, and nothing when there is none (tracing off: no trace)", async () => {
    await own.queues.enqueue('image.process', { submissionId: 'sub_origin' }, { origin: { requestId: 'req_1' } });
    await own.queues.enqueue('image.process', { submissionId: 'sub_plain' }, { origin: { requestId: undefined } });
    const data = async (id: string) =>
      (await own.queues.queue('image-processing').getJob(jobIdFor('image.process', { submissionId: id })))!.data;
    expect(await data('sub_origin')).toEqual({ submissionId: 'sub_origin', origin: { requestId: 'req_1' } });
    expect(await data('sub_plain')).toEqual({ submissionId: 'sub_plain' });
    expect(originOf(await data('sub_origin'))).toEqual({ requestId: 'req_1' });
    expect(originOf(await data('sub_plain'))).toEqual({});
  });

  it('counts the workers consuming each queue', async () => {
    expect(await own.queues.workerCounts()).toEqual({
      'image-processing': 0,
      'video-processing': 0,
      'upload-expiry': 0,
      maintenance: 0,
    });
    const worker = createQueueWorker('maintenance', own.redis, own.prefix, async () => undefined, {
      concurrency: 1,
      lockDurationMs: 30_000,
    });
    try {
      await worker.waitUntilReady();
      const deadline = Date.now() + 10_000;
      while ((await own.queues.workerCounts()).maintenance === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await own.queues.workerCounts()).toMatchObject({ maintenance: 1, 'image-processing': 0 });
    } finally {
      await worker.close();
    }
  });
});
