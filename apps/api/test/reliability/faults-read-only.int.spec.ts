// A primary demoted under a running API (a failover; the proxy has not moved yet): writes get
// PostgreSQL's 25006 read_only_sql_transaction. No primary serves writes there for a moment, so
// the API answers 503 with Retry-After, never 500, and accepts again by itself (issue 44). The
// database's sessions are made read-only (default_transaction_read_only) and cut, as a demotion does.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { type RelStack, startRelStack, submitFrame } from './harness';

describe('fault: the primary demoted under a running API (25006)', () => {
  let database: TestDatabase;
  let stack: RelStack;
  let key: string;

  const demote = async (readOnly: boolean) => {
    // From the server's maintenance database: the demoted one refuses the ALTER itself.
    const admin = new pg.Client({
      connectionString: Object.assign(new URL(database.url), { pathname: '/postgres' }).toString(),
    });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${database.name} SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database.name],
    );
    await admin.end();
  };

  const readyz = async () => {
    const response = await fetch(`${stack.apiUrl}/readyz`);
    const body = (await response.json()) as { checks?: Record<string, { status: string }> };
    return { status: response.status, postgres: body.checks?.['postgres']?.status };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    stack = await startRelStack({ databaseUrl: database.url, workers: 0 });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await database?.drop();
  });

  it('answers 503 (and /readyz unavailable) while writes are refused, and 202 once a primary takes them', async () => {
    await demote(true);
    // The first answers may still see the cut connections (57P01); wait for the read-only ones.
    let refused;
    for (let attempt = 0; attempt < 5; attempt++) {
      refused = await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news', idempotencyKey: randomUUID() });
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toMatch(/^\d+$/);
    }
    expect(stack.apiOutput()).toMatch(/25006|read-only transaction/);
    // Ready means writes are taken: /readyz says the database is unavailable, then ready again.
    await expect.poll(() => readyz(), { timeout: 10_000 }).toEqual({ status: 503, postgres: 'unavailable' });
    await demote(false);
    // The sessions are cut again as the demotion ends. pg_terminate_backend only signals: a request
    // that takes an idle connection before its backend has gone is refused too (57P01, a 503). The
    // clean clone of 5b08968, under npm test's load, expected 202 at once and got a 503 here. The
    // API accepts again by itself; every answer until then is a 503 with Retry-After, never a 500.
    const meanwhile: string[] = [];
    await expect
      .poll(
        async () => {
          const answer = await submitFrame(stack.apiUrl, key, {
            agent: 'bot',
            channel: 'news',
            idempotencyKey: randomUUID(),
          });
          if (answer.status !== 202)
            meanwhile.push(
              `${answer.status} Retry-After: ${answer.retryAfter ?? 'none'} (${String(answer.body?.['code'])})`,
            );
          return answer.status;
        },
        { timeout: 10_000, interval: 200 },
      )
      .toBe(202);
    expect(meanwhile.filter((answer) => !/^503 Retry-After: \d+ /.test(answer))).toEqual([]);
    await expect.poll(() => readyz(), { timeout: 10_000 }).toEqual({ status: 200, postgres: 'ok' });
  }, 120_000);
});
