// `npm run test:soak`: the longest fault run. LONG_FAULT_SECONDS (default 300) of steady
// submissions while Redis, PostgreSQL, workers and the API are killed in turn, again and again.
// Every request is answered 202 or 503 (or not at all while the API is down); every 202 and
// every retried refusal reaches a final state; nothing is half-created or orphaned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from '@framedesk/testing';
import { acceptedIds, burst, classify, retryRefused, type TimelineEvent } from './burst';
import { checkIntegrity, type RelStack, reportFigures, sleep, startRelStack, waitForSettled } from './harness';

const SECONDS = Number(process.env['LONG_FAULT_SECONDS'] ?? 300);
const EVERY_SECONDS = 12;

describe(`faults, long run: ${SECONDS} s of rotating faults`, () => {
  let redis: PrivateRedis;
  let postgres: PrivatePostgres;
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    postgres = await startPrivatePostgres();
    stack = await startRelStack({
      databaseUrl: await postgres.createDatabase(),
      redisUrl: redis.url,
      workers: 2,
      env: {
        LOG_LEVEL: 'warn',
        WORKER_LOCK_SECONDS: '3',
        RECONCILE_AFTER_SECONDS: '3',
        RECONCILE_INTERVAL_SECONDS: '2',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await redis?.close();
    await postgres?.close();
  });

  it('loses nothing', async () => {
    const injected: Record<string, number> = {};
    const faults: Record<string, () => Promise<void>> = {
      redis: async () => {
        await redis.stop('SIGKILL');
        await sleep(2_000);
        await redis.start();
      },
      postgres: async () => {
        await postgres.stop('immediate');
        await sleep(2_000);
        await postgres.start();
      },
      worker: async () => {
        const live = stack.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
        await live[0]?.stop('SIGKILL');
        await stack.startWorker();
      },
      api: async () => {
        await stack.api().stop('SIGKILL');
        await sleep(500);
        await stack.startApi();
      },
    };
    const names = Object.keys(faults);
    const timeline: TimelineEvent[] = [];
    for (let at = EVERY_SECONDS, i = 0; at < SECONDS - 5; at += EVERY_SECONDS, i++) {
      const name = names[i % names.length]!;
      timeline.push({
        atMs: at * 1000,
        name,
        run: async () => (await faults[name]!(), void (injected[name] = (injected[name] ?? 0) + 1)),
      });
    }
    const sent = await burst(
      stack,
      key,
      { count: SECONDS * 4, intervalMs: 250, agent: 'bot', channel: 'news' },
      timeline,
    );
    const byOutcome: Record<string, number> = {};
    for (const s of sent) {
      const label = classify(s.answer) === 'unexpected' ? `other ${s.answer.status}` : classify(s.answer);
      byOutcome[label] = (byOutcome[label] ?? 0) + 1;
    }
    // No answer at all is fine only while the API process was down; anything answered is 202 or 503
    // (a 500 internal_error during a PostgreSQL crash is a defect, not an outcome).
    const wrong = sent.filter((s) => classify(s.answer) === 'unexpected' && s.answer.status !== 0);
    expect(wrong.map((s) => `${s.answer.status} ${JSON.stringify(s.answer.body)}`)).toEqual([]);

    await sleep(2_000);
    const retried = await retryRefused(stack, key, sent, 120_000);
    expect(
      retried.filter((r) => r.answer.status !== 202).length,
      'refused or unanswered requests accepted on retry',
    ).toBe(0);
    const ids = [...new Set([...acceptedIds(sent), ...acceptedIds(retried)])];
    const statuses = await waitForSettled(stack, ids, 180_000);
    const settled = ids.filter((id) => statuses.get(id) === 'needs_review');
    const integrity = await checkIntegrity(stack);
    reportFigures('faults-long', {
      seconds: SECONDS,
      faults_injected: Object.values(injected).reduce((a, b) => a + b, 0),
      by_fault: injected,
      requests: sent.length,
      first_answers: byOutcome,
      accepted_total: ids.length,
      reached_final: settled.length,
      lost: ids.length - settled.length,
      half_created_rows: integrity.withoutFirstEvent.length + integrity.imagesWithoutOriginalRow.length,
      orphan_files: integrity.orphanFiles.length,
    });
    expect(settled.length).toBe(ids.length);
    expect(integrity.submissions).toBe(sent.length);
    expect(integrity.withoutFirstEvent).toEqual([]);
    expect(integrity.imagesWithoutOriginalRow).toEqual([]);
    expect(integrity.originalRowsWithoutFile).toEqual([]);
    expect(integrity.orphanFiles).toEqual([]);
  });
});
