// A poison image — one whose processing ends its worker (a native crash, the OOM killer) — must
// not kill workers for ever: after WORKER_CRASH_LIMIT crashes (default PROCESSING_CRASH_LIMIT, 3;
// 2 here, which proves the setting and spares the suite a worker boot under load) the frame fails
// `processing_crashed` and is run no more, while other frames go on. The crash is the real thing:
// the worker process kills itself (SIGKILL) when it starts the frame (WORKER_TEST_CRASH_SUBMISSION,
// a test-only setting ignored outside NODE_ENV=test), and a supervisor loop restarts it.
import { makePng } from '@framedesk/testing';
import { PROCESSING_CRASH_LIMIT } from '@framedesk/submissions';
import { settingsSchema } from '@framedesk/config';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';
import { superviseWorkers, type WorkerSupervisor } from './supervisor';

const LIMIT = 2;
let h: WorkerHarness;
let workers: WorkerSupervisor | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  h = await createWorkerHarness();
});
afterAll(async () => {
  await workers?.stop();
  await h?.cleanup();
});

it(
  'fails a frame whose processing kills its worker with processing_crashed after WORKER_CRASH_LIMIT crashes, and runs it no more',
  { timeout: 600_000 },
  async () => {
    // Submitted before the workers start (its id is their setting), as an API would have.
    const poison = await h.seedImage(makePng(64, 48, { seed: 1 }));
    await h.producer.submitImage(poison, { backlog: 1 });
    // Two workers, restarted as a supervisor would whenever one dies.
    workers = superviseWorkers(
      {
        ...h.env,
        LOG_LEVEL: 'warn',
        WORKER_LOCK_SECONDS: '2',
        // Its intake entry is trusted for 5 × 10 s while the workers boot on a busy machine.
        RECONCILE_AFTER_SECONDS: '10',
        RECONCILE_INTERVAL_SECONDS: '1',
        WORKER_TEST_CRASH_SUBMISSION: poison,
        WORKER_CRASH_LIMIT: String(LIMIT),
      },
      2,
    );
    const deaths = () => workers!.deaths();
    const statusOf = async (id: string) => h.db.repos.submissions.findById(id);
    const deadline = Date.now() + 300_000;
    while ((await statusOf(poison))?.status !== 'failed') {
      if (Date.now() > deadline) throw new Error(`still ${(await statusOf(poison))?.status} after ${deaths()} deaths`);
      await sleep(100);
    }
    const deathsAtFailure = deaths();
    // Once nothing is left that could run it again (no job of the image queue waiting, delayed or
    // running, no intake entry), no worker died again: waited for, not a fixed pause.
    await workers.ready();
    const idle = async () => {
      const image = (await h.producer.counts())['image-processing'];
      return ['waiting', 'active', 'delayed', 'prioritized'].every((state) => (image[state] ?? 0) === 0);
    };
    while (!(await idle())) await sleep(100);
    expect(deaths()).toBe(deathsAtFailure);
    expect(deathsAtFailure).toBeGreaterThanOrEqual(LIMIT);
    // The last crash is counted as the next run may already be starting: at most one more.
    expect(deathsAtFailure).toBeLessThanOrEqual(LIMIT + 1);
    expect(settingsSchema.properties.WORKER_CRASH_LIMIT.default).toBe(PROCESSING_CRASH_LIMIT);
    const row = await statusOf(poison);
    expect(row).toMatchObject({ status: 'failed', failureCode: 'processing_crashed' });
    expect(row?.failureMessage).toMatch(/ended the worker 2 times/);

    // The workers left go on with other frames.
    const healthy = await h.seedImage(makePng(64, 48, { seed: 2 }));
    await h.producer.submitImage(healthy, { backlog: 1 });
    const healthyDeadline = Date.now() + 120_000;
    while ((await statusOf(healthy))?.status !== 'needs_review') {
      if (Date.now() > healthyDeadline) throw new Error('the healthy frame was not processed');
      await sleep(100);
    }
    expect(deaths()).toBe(deathsAtFailure);
  },
);
