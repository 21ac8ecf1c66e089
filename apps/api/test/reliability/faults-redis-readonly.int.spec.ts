// A Redis primary demoted under running processes (what Sentinel does to the old primary in a
// failover): the Redis every process talks to becomes a replica of an empty one (`REPLICAOF`),
// so every write answers READONLY and its data is gone, then it is promoted again (`REPLICAOF NO
// ONE`), empty, as a replica promoted without the last writes. Every request is answered 202 or
// 503 (never 500) — a reviewer's sign-in too, whose throttle writes to Redis — and every
// acknowledged frame still reaches needs_review (never failed).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '@framedesk/testing';
import { burstThroughOutage, unexpected } from './burst';
import { type RelStack, reportFigures, startRelStack } from './harness';

const PASSWORD = 'a long enough password';

describe('fault: the Redis primary demoted to a replica mid-burst (READONLY)', () => {
  let primary: PrivateRedis;
  let other: PrivateRedis;
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    [primary, other] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
    stack = await startRelStack({
      redisUrl: primary.url,
      workers: 1,
      env: { RECONCILE_AFTER_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    key = await stack.createAgent('bot', ['news']);
    const created = await stack.cli(
      ['reviewer', 'create', 'ana@example.com', '--password-stdin', '--role', 'admin'],
      PASSWORD,
    );
    expect(created.code, created.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([primary?.close(), other?.close()]);
  });

  const replicaOf = async (...args: string[]) => {
    const admin = new Redis(primary.url, { maxRetriesPerRequest: 1 });
    try {
      await admin.call('REPLICAOF', ...args);
    } finally {
      admin.disconnect();
    }
  };

  const signIn = async () => {
    const response = await fetch(`${stack.apiUrl}/review/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ana@example.com', password: PASSWORD }),
    });
    return `${response.status} ${response.headers.get('retry-after') ?? '-'} ${(await response.text()).slice(0, 120)}`;
  };

  it('answers 202 or 503 while writes are refused READONLY, and fails no acknowledged frame', async () => {
    const signIns: string[] = [];
    const run = await burstThroughOutage(stack, key, {
      timeline: [
        { atMs: 1_000, name: 'demoted', run: () => replicaOf('127.0.0.1', String(other.port)) },
        { atMs: 1_500, name: 'a sign-in meanwhile', run: async () => void signIns.push(await signIn()) },
        { atMs: 3_500, name: 'promoted again (empty)', run: () => replicaOf('NO', 'ONE') },
      ],
      window: [1_000, 3_500],
    });
    const { sent, ids, settled } = run;
    reportFigures('faults-redis-readonly', run.figures);
    expect(unexpected(sent), 'answers other than 202 or 503 service_unavailable').toEqual([]);
    expect(settled.length, `not settled: ${run.notSettled}`).toBe(ids.length);
    // The sign-in's throttle could not write: 503 with Retry-After, never 500.
    expect(signIns).toHaveLength(1);
    expect(signIns[0]).toMatch(/^503 \d+ .*service_unavailable/);
    expect(await signIn()).toMatch(/^201 /);
  }, 180_000);
});
