// A stall is one crash (poison-image.int.spec.ts counts them to fail a poison image): the runs
// that follow it — a job held for a server fault runs again and again — do not count it again.
import { makePng } from '@framedesk/testing';
import { PROCESSING_CRASH_LIMIT } from '@framedesk/submissions';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';

let h: WorkerHarness;

beforeAll(async () => {
  h = await createWorkerHarness();
});
afterAll(() => h?.cleanup());

it('counts a stall once: a job that stalled, then waits out a storage outage, is not failed processing_crashed', async () => {
  // Its job stalled once (a worker died in it), then meets an object store that is unavailable for
  // its next runs: each is held with back-off and run again. A stall is one crash, whatever the
  // runs after it (the fleet test's storage outage failed such frames processing_crashed).
  const id = await h.seedImage(makePng(64, 48, { seed: 3 }));
  await h.producer.enqueue('image.process', { submissionId: id });
  await h.redis.hset(`${h.settings.REDIS_PREFIX}:image-processing:image.process__${id}`, 'stc', '1');
  let outages = PROCESSING_CRASH_LIMIT;
  const storage = {
    ...h.storage,
    get: (...args: Parameters<typeof h.storage.get>) => {
      if (args[1].includes(id) && outages-- > 0)
        return Promise.reject(Object.assign(new Error('storage unavailable'), { name: 'ServiceUnavailable' }));
      return h.storage.get(...args);
    },
  };
  await h.startRuntime({ storage, queues: ['image-processing'], serverFaultBackoff: { baseMs: 50, maxMs: 200 } });
  const row = await h.waitForStatus(id, ['needs_review', 'failed'], 60_000);
  expect({ status: row.status, failureCode: row.failureCode }).toEqual({ status: 'needs_review', failureCode: null });
  expect(outages).toBeLessThan(0); // every outage was met
  expect(await h.db.repos.submissions.findById(id)).toMatchObject({ crashCount: 1 });
});
