// Redis (queues, rate limits) dies mid-burst and comes back empty: every request is answered
// 202 or 503 `service_unavailable`, and every 202 still reaches a final state (the reconciler
// re-enqueues what the lost queue held).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '@framedesk/testing';
import { burstThroughOutage, unexpected } from './burst';
import { type RelStack, reportFigures, startRelStack } from './harness';

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
    const run = await burstThroughOutage(stack, key, {
      timeline: [
        { atMs: 1_000, name: 'redis down', run: () => redis.stop('SIGKILL') },
        { atMs: 3_000, name: 'redis back (empty)', run: () => redis.start() },
      ],
      window: [1_000, 3_000],
    });
    const { sent, ids, settled, integrity } = run;
    reportFigures('faults-redis', { faults_injected: 1, ...run.figures, submissions_in_db: integrity.submissions });
    expect(unexpected(sent), 'answers other than 202 or 503 service_unavailable').toEqual([]);
    expect(settled.length, `not settled: ${run.notSettled}`).toBe(ids.length);
    // One submission per Idempotency-Key, however many times it was sent.
    expect(integrity.submissions).toBe(sent.length);
    expect(integrity.withoutFirstEvent).toEqual([]);
    expect(integrity.imagesWithoutOriginalRow).toEqual([]);
    expect(integrity.orphanFiles).toEqual([]);
    expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
  }, 180_000);
});
