// The errors PostgreSQL's clients really raise when the server goes away, classified by what
// raised them (libs/domain connection-errors): node-postgres's server error for an administrator
// shutdown (57P01), and a reset under Prisma. A bare socket reset says nothing about whose it is.
import { connect, createServer } from 'node:net';
import { connectionError, errorChain, raisedBy } from '@framedesk/domain';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from './client';
import { databaseUnreachableReason } from './unreachable';

const reasonOf = (error: unknown) =>
  errorChain(error)
    .map((e) => databaseUnreachableReason(e))
    .find((r) => r !== null) ?? null;

describe('PostgreSQL unreachable, from real errors', () => {
  let database: TestDatabase;
  // A "PostgreSQL" that resets every connection it accepts.
  const resetting = createServer((socket) => socket.resetAndDestroy());
  let resetPort = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    resetPort = (resetting.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => resetting.close(resolve));
    await database?.drop();
  });

  it('a backend terminated by an administrator (57P01) is PostgreSQL’s by its class', async () => {
    const victim = new pg.Client({ connectionString: database.url });
    const admin = new pg.Client({ connectionString: database.url });
    await Promise.all([victim.connect(), admin.connect()]);
    try {
      const emitted = new Promise<Error>((resolve) => victim.once('error', resolve));
      const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      const error = (await emitted) as Error & { code?: string; severity?: string };
      expect(error.code).toBe('57P01');
      expect(raisedBy(error)).toBe('PostgreSQL');
      expect(databaseUnreachableReason(error)).toBe('PostgreSQL unreachable [57P01]');
    } finally {
      await Promise.all([victim.end().catch(() => undefined), admin.end()]);
    }
  });

  it('a reset under Prisma is PostgreSQL’s; the same reset from a bare socket is not', async () => {
    const db = createDatabase({ url: Object.assign(new URL(database.url), { port: String(resetPort) }).toString() });
    try {
      const error = await db.ping().then(
        () => null,
        (e: unknown) => e,
      );
      expect(reasonOf(error)).toMatch(/^PostgreSQL unreachable/);
    } finally {
      await db.close().catch(() => undefined);
    }
    const bare = await new Promise<Error>((resolve) => connect(resetPort, '127.0.0.1').on('error', resolve));
    expect(connectionError(bare)).toEqual({ code: 'ECONNRESET', dependency: null });
    expect(databaseUnreachableReason(bare)).toBeNull();
  });
});
