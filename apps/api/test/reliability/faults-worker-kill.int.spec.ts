// Workers are SIGKILLed again and again while they process: BullMQ's stalled-job check and the
// reconciler hand their jobs to the survivors, and every submission ends needs_review.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng } from '@framedesk/testing';
import { acceptedIds, burst, counts } from './burst';
import { checkIntegrity, type RelStack, reportFigures, sleep, startRelStack, waitForSettled } from './harness';

describe('fault: workers SIGKILLed repeatedly during processing', () => {
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    stack = await startRelStack({
      workers: 1,
      env: {
        WORKER_LOCK_SECONDS: '2',
        RECONCILE_AFTER_SECONDS: '3',
        RECONCILE_INTERVAL_SECONDS: '1',
        RATE_LIMIT_PER_MINUTE: '100000',
        // This test kills every worker four times in a row on purpose: a frame in flight at three
        // of those kills is what the poison guard fails (processing_crashed, WORKER_CRASH_LIMIT 3).
        // Nothing here is poison, so the limit is above the kills.
        WORKER_CRASH_LIMIT: '10',
      },
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('ends every submission needs_review', async () => {
    // Big enough that a worker is often killed mid-job (decode + three variants).
    const png = makePng(1200, 900, { seed: 7 });
    const sent = await burst(stack, key, { count: 20, intervalMs: 50, agent: 'bot', channel: 'news', png: () => png });
    expect(counts(sent).accepted).toBe(20);
    const ids = acceptedIds(sent);

    // Kill the running worker while it holds jobs, start another, again and again.
    let kills = 0;
    let inFlightAtKill = 0;
    for (let round = 0; round < 4; round++) {
      await sleep(1_000);
      const [processing] = await stack.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM submissions WHERE status = 'media_processing'",
      );
      inFlightAtKill += Number(processing?.n ?? 0);
      for (const worker of stack.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null)) {
        await worker.stop('SIGKILL');
        kills++;
      }
      await stack.startWorker();
    }

    const statuses = await waitForSettled(stack, ids, 90_000);
    const reviewed = ids.filter((id) => statuses.get(id) === 'needs_review');
    const integrity = await checkIntegrity(stack);
    const variants = await stack.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM media_objects WHERE kind = 'variant'",
    );
    reportFigures('faults-worker-kill', {
      faults_injected: kills,
      media_processing_at_kills: inFlightAtKill,
      requests: sent.length,
      accepted_total: ids.length,
      reached_final: reviewed.length,
      lost: ids.length - reviewed.length,
      variant_rows: Number(variants[0]?.n ?? 0),
    });
    expect(kills).toBe(4);
    expect(inFlightAtKill, 'kills landed while jobs were running').toBeGreaterThan(0);
    expect(
      reviewed.length,
      `not needs_review: ${ids
        .filter((id) => statuses.get(id) !== 'needs_review')
        .map((id) => `${id}=${statuses.get(id)}`)
        .join(', ')}`,
    ).toBe(ids.length);
    expect(integrity.withoutFirstEvent).toEqual([]);
    expect(integrity.orphanFiles).toEqual([]);
    // Each transition recorded once per submission, however many workers tried.
    const doubled = await stack.query<{ id: string }>(
      "SELECT submission_id AS id FROM submission_events WHERE type = 'transition' AND to_status = 'needs_review' GROUP BY submission_id HAVING count(*) > 1",
    );
    expect(doubled).toEqual([]);
  }, 240_000);
});
