// One run of a frame at a time (docs/reliability.md): a frame's re-runs — an intake entry taken
// back by the stalled check, the reconciler's re-publish, a job run again after its lock lapsed
// in a Redis failover — come while its first run may still be going, or after it ended. A re-run
// waits for a live run of the frame (whichever worker) and does not run once the frame has left
// the pipeline, so a frame runs more than once only when a run of it died or was held.
import { countProcessingRuns, makePng, RUNS_PER_FRAME_SQL, waitUntil } from '@framedesk/testing';
import { newId } from '@framedesk/domain';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';

let h: WorkerHarness;

beforeAll(async () => {
  // Runs are renewed within half a second and stale after a second; a deferred job looks again after 0.5 s.
  h = await createWorkerHarness({ WORKER_LOCK_SECONDS: '2' });
  await countProcessingRuns(h.query);
});
afterAll(() => h?.cleanup());

const runsOf = async (id: string) => (await h.query<{ runs: number }>(RUNS_PER_FRAME_SQL, [[id]]))[0]?.runs;
it('does not run a frame beside a live run of it elsewhere: the re-run waits, and runs once that run is gone', async () => {
  const id = await h.seedImage(makePng(64, 48, { seed: 11 }));
  // Another worker's run of the frame, renewed as a living worker renews it.
  await h.query(`INSERT INTO processing_runs (id, submission_id, worker) VALUES ($1, $2, 'other-worker')`, [
    newId('submission'),
    id,
  ]);
  const renew = setInterval(() => {
    void h.query(`UPDATE processing_runs SET seen_at = now() WHERE worker = 'other-worker'`).catch(() => undefined);
  }, 100);
  try {
    await h.producer.enqueue('image.process', { submissionId: id }, { attempt: 'r1' });
    const runtime = await h.startRuntime({ queues: ['image-processing'] });
    // Looked at, then put off: delayed in BullMQ, not run.
    await waitUntil('the re-run deferred', async () => {
      const row = await h.db.repos.submissions.findById(id);
      return (
        row?.status !== 'received' ||
        (await h.producer.jobState('image.process', { submissionId: id }, 'r1')) === 'delayed'
      );
    });
    expect(await h.db.repos.submissions.findById(id)).toMatchObject({ status: 'received' });
    expect(await runsOf(id)).toBe(1); // the other worker's, none here
    expect(runtime.stats.serverFaults).toBe(0); // a wait, not a fault
  } finally {
    clearInterval(renew);
  }
  // Its worker stops renewing it (it died): the next look finds the frame free and runs it, once.
  const row = await h.waitForStatus(id, ['needs_review', 'failed'], 30_000);
  expect(row.status).toBe('needs_review');
  expect(await runsOf(id)).toBe(2);
});

it('does not run a frame again once it has left the pipeline: a re-delivery after its run records no run', async () => {
  const id = await h.seedImage(makePng(64, 48, { seed: 12 }));
  await h.producer.enqueue('image.process', { submissionId: id });
  await h.startRuntime({ queues: ['image-processing'] });
  await h.waitForStatus(id, ['needs_review'], 30_000);
  expect(await runsOf(id)).toBe(1);
  // The reconciler's re-run (or an entry whose acknowledgement a failover lost) comes after the run.
  await h.producer.enqueue('image.process', { submissionId: id }, { attempt: 'r2' });
  // Removed once it completes (DEFAULT_JOB_OPTIONS): gone from BullMQ, not failed.
  await waitUntil(
    're-delivery completed',
    async () => (await h.producer.jobState('image.process', { submissionId: id }, 'r2')) === 'missing',
  );
  expect(await runsOf(id)).toBe(1);
  expect(await h.db.repos.submissions.findById(id)).toMatchObject({ status: 'needs_review' });
});
