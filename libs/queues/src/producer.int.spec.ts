import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from './connection';
import { createQueueProducer, type QueueProducer, RERUN_PRIORITY } from './producer';
import { jobIdFor } from './registry';

describe('queue producer (real Redis)', () => {
  const prefix = createTestRedisPrefix();
  let redis: Redis;
  let queues: QueueProducer;

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), 'worker');
    queues = createQueueProducer(redis, prefix.prefix);
  });
  afterAll(async () => {
    await queues.close();
    redis.disconnect();
    await prefix.cleanup();
  });

  it('derives job ids from the submission, so a duplicate enqueue is a no-op', async () => {
    const payload = { submissionId: 'sub_dup' };
    await queues.enqueue('image.process', payload);
    await queues.enqueue('image.process', payload);
    expect(await queues.queue('image-processing').getJobCounts('waiting')).toEqual({ waiting: 1 });
    expect(await queues.jobState('image.process', payload)).toBe('waiting');
    expect(jobIdFor('image.process', payload)).toBe('image.process__sub_dup');
  });

  it('tells live jobs from missing, completed and failed ones, re-runs included', async () => {
    const payload = { submissionId: 'sub_rerun' };
    expect(await queues.hasLiveJob('image.process', payload)).toBe(false);
    const attempt = await queues.enqueueRerun('image.process', payload);
    expect(await queues.hasLiveJob('image.process', payload)).toBe(true);
    const job = await queues.queue('image-processing').getJob(jobIdFor('image.process', payload, attempt));
    expect(job?.opts.priority).toBe(RERUN_PRIORITY);
    await job!.remove();
    expect(await queues.hasLiveJob('image.process', payload)).toBe(false);
  });

  it('sees the latest attempt-suffixed job of any producer (e.g. a delayed status poll) as live', async () => {
    const payload = { submissionId: 'sub_poll' };
    await queues.enqueue('video.process', payload, { attempt: 'poll-1', at: new Date(Date.now() + 60_000) });
    expect(await queues.jobState('video.process', payload)).toBe('missing');
    expect(await queues.hasLiveJob('video.process', payload)).toBe(true);
  });

  it('delays a job until `at`', async () => {
    const payload = { submissionId: 'sub_later', uploadId: 'upl_later' };
    await queues.enqueue('upload.expire', payload, { at: new Date(Date.now() + 60_000) });
    expect(await queues.jobState('upload.expire', payload)).toBe('delayed');
    expect(await queues.isLive('upload.expire', payload)).toBe(true);
  });

  it('declares one scheduler per periodic job however often it is declared', async () => {
    await queues.schedule('maintenance.reconcile', 30_000);
    await queues.schedule('maintenance.reconcile', 30_000);
    await queues.schedule('maintenance.sweep', 3_600_000);
    const schedulers = await queues.queue('maintenance').getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual(['maintenance.reconcile', 'maintenance.sweep']);
    // One pending run per scheduler (the first runs at once), not one per declaration.
    const counts = (await queues.counts()).maintenance;
    expect((counts['waiting'] ?? 0) + (counts['delayed'] ?? 0)).toBe(2);
  });
});
