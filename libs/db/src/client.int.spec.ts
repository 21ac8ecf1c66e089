// The pool against a primary that vanished without a word (a half-open socket: no FIN, no RST,
// as when a node's machine dies or a network partition falls between): a query must give up and
// be classified as "PostgreSQL unreachable", so a worker holds its job and the API answers 503,
// instead of hanging for as long as TCP retransmits (issue 44).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { createDatabase, type Database } from './client';
import { startFreezingProxy } from './freezing-proxy.test-support';
import { databaseUnreachableReason } from './unreachable';

describe('the pool and a half-open connection', () => {
  let database: TestDatabase;
  let proxy: Awaited<ReturnType<typeof startFreezingProxy>>;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    proxy = await startFreezingProxy(Number(url.port || 5432));
    url.port = String(proxy.port);
    db = createDatabase({ url: url.toString(), poolSize: 1, queryTimeoutMs: 1_000 });
  });

  afterAll(async () => {
    await db?.close().catch(() => undefined);
    await proxy?.close();
    await database?.drop();
  });

  it('gives up on a query whose connection no longer answers, as PostgreSQL unreachable', async () => {
    await db.ping();
    proxy.freeze();
    // Without a query timeout this never settles (the test's own timeout fails it).
    const error = await db.ping().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    const chain: object[] = [];
    for (let e: unknown = error; e && typeof e === 'object' && chain.length < 10; e = (e as { cause?: unknown }).cause)
      chain.push(e);
    expect(chain.map((e) => databaseUnreachableReason(e)).find((r) => r !== null)).toMatch(/unreachable/);
  }, 20_000);

  it('repeats a read that meets its connection cut and the server away for a moment', async () => {
    const cutter = await startFreezingProxy(Number(new URL(database.url).port || 5432));
    const reader = createDatabase({
      url: Object.assign(new URL(database.url), { port: String(cutter.port) }).toString(),
      poolSize: 1,
    });
    try {
      expect(await reader.repos.channels.list()).toEqual([]);
      cutter.cut(400);
      // Without the retry the read fails at once ("Connection terminated unexpectedly").
      expect(await reader.repos.channels.list()).toEqual([]);
    } finally {
      await reader.close().catch(() => undefined);
      await cutter.close();
    }
  });
});
