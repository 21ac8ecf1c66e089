// What a stall counts (docs/reliability.md, "How crashes are blamed"; crash-blame.int.spec.ts runs
// the whole story with real worker processes): a crash is a strike on a frame only when its run
// was the one its worker died in. Runs left by a dead worker are seeded here as the worker leaves
// them (`processing_runs` rows no longer renewed); a stall without one — an entry read and never
// started, a run that ended in a living worker while Redis was away — is no crash at all.
import { INTAKE_GROUP, intakeKey } from '@framedesk/queues';
import { makePng } from '@framedesk/testing';
import { PROCESSING_CRASH_LIMIT } from '@framedesk/submissions';
import { newId } from '@framedesk/domain';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';

let h: WorkerHarness;

beforeAll(async () => {
  h = await createWorkerHarness({ WORKER_LOCK_SECONDS: '2' });
});
afterAll(() => h?.cleanup());

const crashCount = async (id: string) =>
  (await h.query<{ crash_count: number }>('SELECT crash_count FROM submissions WHERE id = $1', [id]))[0]?.crash_count;
/** The run `worker` died in, alone: its row, no longer renewed. */
const diedAloneIn = async (worker: string, submissionId: string) => {
  await h.db.repos.processingRuns.start({ id: newId('submission'), submissionId, worker }, { liveWithinMs: 1000 });
  await h.query(`UPDATE processing_runs SET seen_at = now() - interval '1 minute' WHERE worker = $1`, [worker]);
};
/** BullMQ's own record of a stall of the frame's job (what its stalled check leaves). */
const markStalled = (id: string) =>
  h.redis.hset(`${h.settings.REDIS_PREFIX}:image-processing:image.process__${id}`, 'stc', '1');

it('counts a crash once: a frame struck by a crash, then waiting out a storage outage, is not failed processing_crashed', async () => {
  // Its run died alone once, then it meets an object store that is unavailable for its next
  // runs: each is held with back-off and run again. One crash is one strike, whatever the runs
  // after it (the fleet test's storage outage failed such frames processing_crashed).
  const id = await h.seedImage(makePng(64, 48, { seed: 3 }));
  await diedAloneIn('dead-worker-1', id);
  await h.producer.enqueue('image.process', { submissionId: id });
  await markStalled(id);
  let outages = PROCESSING_CRASH_LIMIT;
  const storage = {
    ...h.storage,
    get: (...args: Parameters<typeof h.storage.get>) => {
      if (args[1].includes(id) && outages-- > 0)
        return Promise.reject(Object.assign(new Error('storage unavailable'), { name: 'ServiceUnavailable' }));
      return h.storage.get(...args);
    },
  };
  const runtime = await h.startRuntime({
    storage,
    queues: ['image-processing'],
    serverFaultBackoff: { baseMs: 50, maxMs: 200 },
  });
  const row = await h.waitForStatus(id, ['needs_review', 'failed'], 60_000);
  await runtime.close();
  expect({ status: row.status, failureCode: row.failureCode }).toEqual({ status: 'needs_review', failureCode: null });
  expect(outages).toBeLessThan(0); // every outage was met
  expect(await crashCount(id)).toBe(1);
});

it('gives no strike for a stall without a dead run: entries a dead worker read but never started, a run that ended while Redis was away', async () => {
  // Read by a worker that died before it started them (its buffer): pending on it in the group.
  const buffered = [await h.seedImage(makePng(64, 48, { seed: 4 })), await h.seedImage(makePng(64, 48, { seed: 5 }))];
  for (const id of buffered) await h.producer.submitImage(id, { backlog: 1 });
  const key = intakeKey(h.settings.REDIS_PREFIX, 0);
  await h.redis.xgroup('CREATE', key, INTAKE_GROUP, '0', 'MKSTREAM').catch(() => undefined);
  await h.redis.xreadgroup('GROUP', INTAKE_GROUP, 'dead-worker-2', 'COUNT', 10, 'STREAMS', key, '>');
  // A job BullMQ saw stall (its lock lapsed during a Redis outage) whose run ended in its worker.
  const outlived = await h.seedImage(makePng(64, 48, { seed: 6 }));
  await h.producer.enqueue('image.process', { submissionId: outlived });
  await markStalled(outlived);

  const runtime = await h.startRuntime({ queues: ['image-processing'] });
  for (const id of [...buffered, outlived]) {
    const row = await h.waitForStatus(id, ['needs_review', 'failed'], 60_000);
    expect({ id, status: row.status }).toEqual({ id, status: 'needs_review' });
    expect(await crashCount(id)).toBe(0);
  }
  expect(runtime.stats.stalled).toBeGreaterThanOrEqual(buffered.length); // the intake took them back
  await runtime.close();
});

it('holds the job while PostgreSQL is away as a stalled frame is judged, and judges it once PostgreSQL is back', async () => {
  // PostgreSQL answers the crash count's write as a server shutting down would (SQLSTATE 57P01).
  await h.query(`CREATE TABLE postgres_away (since timestamptz DEFAULT now())`);
  await h.query(`INSERT INTO postgres_away DEFAULT VALUES`);
  await h.query(`CREATE FUNCTION away() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF EXISTS (SELECT 1 FROM postgres_away) THEN
        RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01';
      END IF;
      RETURN NEW;
    END $$`);
  await h.query(`CREATE TRIGGER away BEFORE UPDATE OF crash_count ON submissions FOR EACH ROW EXECUTE FUNCTION away()`);
  const id = await h.seedImage(makePng(64, 48, { seed: 7 }));
  await diedAloneIn('dead-worker-3', id);
  await h.producer.enqueue('image.process', { submissionId: id });
  await markStalled(id);

  const runtime = await h.startRuntime({
    queues: ['image-processing'],
    serverFaultBackoff: { baseMs: 50, maxMs: 200 },
  });
  const deadline = Date.now() + 60_000;
  while (runtime.stats.serverFaults === 0) {
    if (Date.now() > deadline) throw new Error('the job was not held for the server fault');
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(await h.db.repos.submissions.findById(id)).toMatchObject({ status: 'received' });
  await h.query(`DELETE FROM postgres_away`);
  const row = await h.waitForStatus(id, ['needs_review', 'failed'], 60_000);
  await runtime.close();
  expect({ status: row.status, failureCode: row.failureCode }).toEqual({ status: 'needs_review', failureCode: null });
  expect(await crashCount(id)).toBe(1); // the dead run was counted once, when PostgreSQL was back
});
