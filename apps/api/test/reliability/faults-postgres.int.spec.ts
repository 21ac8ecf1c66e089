// PostgreSQL crashes and restarts mid-burst (a private cluster: the shared server is never
// touched): requests are answered 202 or 503, no row is half-created, no file is orphaned, and
// every accepted submission reaches a final state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivatePostgres, startPrivatePostgres } from '@framedesk/testing';
import { burstThroughOutage, unexpected } from './burst';
import { type RelStack, reportFigures, sleep, startRelStack } from './harness';

// This test once found requests answered 500 internal_error instead of 503 while the server
// crashed (pg's code-less "Connection terminated unexpectedly"); apps/api/src/http/unavailable.ts
// now maps it, and a 500 fails the test.

describe('fault: PostgreSQL restarted mid-burst', () => {
  let postgres: PrivatePostgres;
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    stack = await startRelStack({
      databaseUrl: await postgres.createDatabase(),
      workers: 1,
      env: { RECONCILE_AFTER_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await postgres?.close();
  });

  it('creates nothing by halves and loses no accepted submission', async () => {
    let restarts = 0;
    const run = await burstThroughOutage(stack, key, {
      timeline: [
        {
          atMs: 1_200,
          name: 'postgres crash + restart',
          run: async () => {
            await postgres.stop('immediate');
            await sleep(1_500);
            await postgres.start();
            restarts++;
          },
        },
      ],
      window: [1_200, 2_700],
      retryDeadlineMs: 90_000, // a claim the crash kept from being released blocks its key for IDEMPOTENCY_LOCK_MS (60 s)
    });
    const { sent, retried, ids, statuses, settled, integrity } = run;
    reportFigures('faults-postgres', {
      faults_injected: restarts,
      ...run.figures,
      half_created_rows: integrity.withoutFirstEvent.length + integrity.imagesWithoutOriginalRow.length,
      orphan_files: integrity.orphanFiles.length,
      unsettled: await Promise.all(
        ids
          .filter((id) => statuses.get(id) !== 'needs_review')
          .map(async (id) => {
            // Where the 202 came from, and what the idempotency record says, to explain a loss.
            const firstTry = sent.find((s) => s.answer.body?.['id'] === id);
            const retry = retried.find((s) => s.answer.body?.['id'] === id);
            const item = firstTry ?? retry;
            const records = await stack.query(
              'SELECT state, response_status, locked_until, created_at FROM idempotency_records WHERE key = $1',
              [item?.input.idempotencyKey],
            );
            return {
              id,
              status: statuses.get(id) ?? null,
              answered: firstTry ? `first try at ${firstTry.atMs} ms` : 'retry',
              replayed: item?.answer.replayed,
              records,
            };
          }),
      ),
    });
    expect(restarts).toBe(1);
    // What the API logged for any answer that was neither 202 nor 503 (to name the unmapped error).
    const logged = stack
      .apiOutput()
      .split('\n')
      .filter((line) => line.includes('unhandled error'))
      .map((line) => {
        try {
          const { err } = JSON.parse(line) as {
            err: {
              type?: string;
              code?: string;
              message?: string;
              meta?: { driverAdapterError?: { cause?: { kind?: string } } };
            };
          };
          const message = (err.message ?? '').trim().split('\n').pop();
          return `${err.type} code=${err.code} kind=${err.meta?.driverAdapterError?.cause?.kind} ${message?.slice(0, 160)}`;
        } catch {
          return line.slice(0, 300);
        }
      });
    expect
      .soft(
        unexpected(sent),
        `answers other than 202 or 503 service_unavailable; API logged: ${[...new Set(logged)].join(' || ')}`,
      )
      .toEqual([]);
    expect.soft(settled.length, `not settled: ${run.notSettled}`).toBe(ids.length);
    expect.soft(integrity.submissions).toBe(sent.length);
    expect.soft(integrity.withoutFirstEvent).toEqual([]);
    expect.soft(integrity.imagesWithoutOriginalRow).toEqual([]);
    expect.soft(integrity.originalRowsWithoutFile).toEqual([]);
    expect.soft(integrity.orphanFiles).toEqual([]);
    expect.soft((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
  }, 180_000);
});
