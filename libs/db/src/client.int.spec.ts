// The pool against a primary that vanished without a word (a half-open socket: no FIN, no RST,
// as when a node's machine dies or a network partition falls between): a query must give up and
// be classified as "PostgreSQL unreachable", so a worker holds its job and the API answers 503,
// instead of hanging for as long as TCP retransmits (issue 44).
import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, freePort, type TestDatabase } from '@framedesk/testing';
import { createDatabase, type Database } from './client';
import { databaseUnreachableReason } from './unreachable';

/** Forwards to PostgreSQL until `freeze()`: from then on, bytes go nowhere and nothing is closed. */
async function startFreezingProxy(port: number) {
  const listen = await freePort();
  const sockets = new Set<Socket>();
  let frozen = false;
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => void (frozen || upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => void (frozen || client.write(chunk)));
    const end = () => [client, upstream].forEach((s) => (s.destroy(), sockets.delete(s)));
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(listen, '127.0.0.1', resolve));
  return {
    port: listen,
    freeze: () => void (frozen = true),
    close: async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

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
});
