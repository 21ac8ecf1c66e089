// Crashes are blamed on the frame that crashed (docs/reliability.md, "How crashes are blamed"):
// a worker running WORKER_CONCURRENCY = 4 images dies of one of them (the poison: it SIGKILLs
// itself when it starts that frame, WORKER_TEST_CRASH_SUBMISSION, as poison-image.int.spec.ts)
// with 20 normal frames beside it, read and running. A supervisor restarts it each time. The
// frames that merely ran beside the poison, or were read and never started, are run again
// without a strike; only the poison, run alone, is struck and fails `processing_crashed`.
import { makePng } from '@framedesk/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';
import { superviseWorkers, type WorkerSupervisor } from './supervisor';

const NORMAL = 20;
let h: WorkerHarness;
let workers: WorkerSupervisor | undefined;

beforeAll(async () => {
  h = await createWorkerHarness();
});
afterAll(async () => {
  await workers?.stop();
  await h?.cleanup();
});

it(
  'fails only the frame that kills its worker processing_crashed; the 20 frames running and read beside it end needs_review',
  { timeout: 600_000 },
  async () => {
    // Submitted before the worker starts, as an API would have: its first reads take the poison
    // together with the normal frames around it.
    const ids: string[] = [];
    for (let i = 0; i < NORMAL + 1; i++) ids.push(await h.seedImage(makePng(64, 48, { seed: 100 + i })));
    const poison = ids[2]!;
    const normal = ids.filter((id) => id !== poison);
    for (const id of ids) await h.producer.submitImage(id, { backlog: 1 });

    workers = superviseWorkers(
      {
        ...h.env,
        LOG_LEVEL: 'warn',
        WORKER_CONCURRENCY: '4',
        WORKER_LOCK_SECONDS: '2',
        WORKER_CRASH_LIMIT: '2',
        // Intake entries are trusted for 5 × 10 s while the worker boots on a busy machine.
        RECONCILE_AFTER_SECONDS: '10',
        RECONCILE_INTERVAL_SECONDS: '1',
        WORKER_TEST_CRASH_SUBMISSION: poison,
      },
      1,
    );
    const final = ['needs_review', 'failed'] as const;
    const row = await h.waitForStatus(poison, final, 300_000);
    const rows = await Promise.all(normal.map((id) => h.waitForStatus(id, final, 300_000)));

    expect({ status: row.status, failureCode: row.failureCode }).toEqual({
      status: 'failed',
      failureCode: 'processing_crashed',
    });
    expect(rows.filter((r) => r.status !== 'needs_review').map((r) => `${r.id} ${r.status} ${r.failureCode}`)).toEqual(
      [],
    );
    // The poison's first crash had normal frames running beside it (else this test proves nothing).
    const logs = workers.processes.map((p) => p.output()).join('\n');
    const suspects = new Set(
      logs
        .split('\n')
        .filter((line) => line.includes('"suspect":true'))
        .map((line) => (JSON.parse(line) as { submission_id: string }).submission_id),
    );
    expect(normal.some((id) => suspects.has(id))).toBe(true);
    expect(workers.deaths()).toBeGreaterThanOrEqual(2);
  },
);
