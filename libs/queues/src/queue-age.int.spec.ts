import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from './connection';
import { createQueueProducer, type QueueProducer } from './producer';
import { oldestWaitingSince } from './queue-age';
import { jobIdFor, originOf } from './registry';
import { createQueueWorker } from './worker';

describe('queue gauges: oldest waiting job, workers, job origin (real Redis)', () => {
  const prefix = createTestRedisPrefix();
  let redis: Redis;
  let queues: QueueProducer;
  const timestampOf = async (name: 'image.process' | 'video.process', submissionId: string) =>
    (await queues
      .queue(name === 'image.process' ? 'image-processing' : 'video-processing')
      .getJob(jobIdFor(name, { submissionId })))!.timestamp;

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), 'worker');
    queues = createQueueProducer(redis, prefix.prefix);
  });
  afterAll(async () => {
    await queues.close();
    redis.disconnect();
    await prefix.cleanup();
  });

  it('is null for every queue while nothing waits, and a delayed job is not waiting', async () => {
    await queues.enqueue(
      'upload.expire',
      { submissionId: 'sub_later', uploadId: 'upl_1' },
      { at: new Date(Date.now() + 3_600_000) },
    );
    expect(await queues.oldestWaitingSeconds()).toEqual({
      'image-processing': null,
      'video-processing': null,
      'upload-expiry': null,
      maintenance: null,
    });
  });

  it('finds the oldest of the FIFO list and of the prioritised set, not the next to run', async () => {
    // Prioritised: the first frame of a busy agent (priority 5) waits behind a later one (1).
    await queues.enqueue('image.process', { submissionId: 'sub_old' }, { priority: 5 });
    await new Promise((r) => setTimeout(r, 30));
    await queues.enqueue('image.process', { submissionId: 'sub_new' }, { priority: 1 });
    // FIFO: no priority.
    await queues.enqueue('video.process', { submissionId: 'sub_v1' });
    await new Promise((r) => setTimeout(r, 30));
    await queues.enqueue('video.process', { submissionId: 'sub_v2' });

    const now = Date.now() + 60_000;
    const ages = await queues.oldestWaitingSeconds(now);
    expect(ages['image-processing']).toBe((now - (await timestampOf('image.process', 'sub_old'))) / 1000);
    expect(ages['video-processing']).toBe((now - (await timestampOf('video.process', 'sub_v1'))) / 1000);
    expect(ages['upload-expiry']).toBeNull();

    // Bounded: looking at one prioritised job only sees the next to run.
    const [image] = await oldestWaitingSince(redis, [queues.queue('image-processing')], 1);
    expect(image).toBe(await timestampOf('image.process', 'sub_new'));
  });

  it("carries the request's id in the job's data, and nothing when there is none (tracing off: no trace)", async () => {
    await queues.enqueue('image.process', { submissionId: 'sub_origin' }, { origin: { requestId: 'req_1' } });
    await queues.enqueue('image.process', { submissionId: 'sub_plain' }, { origin: { requestId: undefined } });
    const data = async (id: string) =>
      (await queues.queue('image-processing').getJob(jobIdFor('image.process', { submissionId: id })))!.data;
    expect(await data('sub_origin')).toEqual({ submissionId: 'sub_origin', origin: { requestId: 'req_1' } });
    expect(await data('sub_plain')).toEqual({ submissionId: 'sub_plain' });
    expect(originOf(await data('sub_origin'))).toEqual({ requestId: 'req_1' });
    expect(originOf(await data('sub_plain'))).toEqual({});
  });

  it('counts the workers consuming each queue', async () => {
    expect(await queues.workerCounts()).toEqual({
      'image-processing': 0,
      'video-processing': 0,
      'upload-expiry': 0,
      maintenance: 0,
    });
    const worker = createQueueWorker('maintenance', redis, prefix.prefix, async () => undefined, {
      concurrency: 1,
      lockDurationMs: 30_000,
    });
    try {
      await worker.waitUntilReady();
      const deadline = Date.now() + 10_000;
      while ((await queues.workerCounts()).maintenance === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await queues.workerCounts()).toMatchObject({ maintenance: 1, 'image-processing': 0 });
    } finally {
      await worker.close();
    }
  });
});
