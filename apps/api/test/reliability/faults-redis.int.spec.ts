// Redis (queues, rate limits) dies mid-burst and comes back empty: every request is answered
// 202 or 503 `service_unavailable`, and every 202 still reaches a final state (the reconciler
// re-enqueues what the lost queue held).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '@framedesk/testing';
import { acceptedIds, burst, counts, retryRefused, retryStats, sentBetween, unexpected } from './burst';
import { checkIntegrity, type RelStack, reportFigures, sleep, startRelStack, waitForSettled } from './harness';

describe('fault: Redis stopped during a burst of submissions', () => {
  let redis: PrivateRedis;
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startRelStack({
      redisUrl: redis.url,
      workers: 1,
      env: { RECONCILE_AFTER_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await redis?.close();
  });

  it('answers 202 or 503 and loses no accepted submission', async () => {
    const sent = await burst(stack, key, { count: 40, intervalMs: 100, agent: 'bot', channel: 'news' }, [
      { atMs: 1_000, name: 'redis down', run: () => redis.stop('SIGKILL') },
      { atMs: 3_000, name: 'redis back (empty)', run: () => redis.start() },
    ]);
    const first = counts(sent);
    expect(sentBetween(sent, 1000, 3000), 'requests sent while the fault was in effect').toBeGreaterThan(5);
    expect(unexpected(sent), 'answers other than 202 or 503 service_unavailable').toEqual([]);

    // Redis is back: what was refused is accepted on retry with the same Idempotency-Key.
    await sleep(1_000);
    const retried = await retryRefused(stack, key, sent);
    expect(
      retried.every((r) => r.answer.status === 202),
      'refused requests accepted on retry',
    ).toBe(true);

    const ids = [...new Set([...acceptedIds(sent), ...acceptedIds(retried)])];
    const statuses = await waitForSettled(stack, ids, 60_000);
    const settled = ids.filter((id) => statuses.get(id) === 'needs_review');
    const integrity = await checkIntegrity(stack);
    reportFigures('faults-redis', {
      faults_injected: 1,
      requests: sent.length,
      sent_during_outage: sentBetween(sent, 1000, 3000),
      accepted_first_try: first.accepted,
      refused_503: first.unavailable,
      unexpected: first.unexpected,
      retry_attempts: retryStats.attempts,
      retry_failures: Object.fromEntries(
        [...new Set(retryStats.failed)].map((f) => [f, retryStats.failed.filter((x) => x === f).length]),
      ),
      accepted_total: ids.length,
      reached_final: settled.length,
      lost: ids.length - settled.length,
      submissions_in_db: integrity.submissions,
    });
    expect(
      settled.length,
      `not settled: ${ids
        .filter((id) => statuses.get(id) !== 'needs_review')
        .map((id) => `${id}=${statuses.get(id)}`)
        .join(', ')}`,
    ).toBe(ids.length);
    // One submission per Idempotency-Key, however many times it was sent.
    expect(integrity.submissions).toBe(sent.length);
    expect(integrity.withoutFirstEvent).toEqual([]);
    expect(integrity.imagesWithoutOriginalRow).toEqual([]);
    expect(integrity.orphanFiles).toEqual([]);
    expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
  }, 180_000);
});
