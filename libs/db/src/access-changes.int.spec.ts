// Access changes heard through PostgreSQL LISTEN/NOTIFY: at commit, and again after the listening
// connection is cut (everyone re-checks, since what was sent meanwhile is lost).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { accessChangeListener, EVERY_REVIEWER } from './access-changes';
import { createDatabase, type Database } from './client';
import { startFreezingProxy } from './freezing-proxy.test-support';

let database: TestDatabase;
let db: Database;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolSize: 2 });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await db?.close();
  await database?.drop();
});

const next = (heard: string[], count: number) =>
  expect.poll(() => heard.length, { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(count);

it('hears a change when its transaction commits, not before, and everyone after its connection was cut', async () => {
  const listener = accessChangeListener(database.url, () => undefined, 50);
  const heard: string[] = [];
  const stop = await listener.subscribe((id) => heard.push(id));
  try {
    await db.transaction(async (repos) => {
      await repos.reviewerSessions.delete('no-such-session');
      await repos.accounts.record('reviewer', 'r1', 'role_set', { actor: 'test', at: new Date() });
    });
    const reviewer = await db.repos.reviewers.create({
      id: 'r1',
      email: 'r1@example.com',
      passwordHash: null,
      name: null,
      role: 'reviewer',
    });
    const channel = (await db.repos.channels.ensure('news')).channel;
    await db.transaction(async (repos) => {
      await repos.accounts.setReviewerChannel(reviewer.id, channel.id, true, { actor: 'test', at: new Date() });
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]); // not before the commit
    });
    await next(heard, 1);
    expect(heard).toEqual(['r1']);

    // Cut the listening connection: it is reopened, and every subscriber re-checks.
    const cut = () =>
      admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      );
    await cut();
    await next(heard, 2);
    expect(heard[1]).toBe(EVERY_REVIEWER);
    await db.transaction((repos) => repos.accounts.setReviewerRole('r1', 'admin', { actor: 'test', at: new Date() }));
    await next(heard, 3);
    expect(heard[2]).toBe('r1');
  } finally {
    stop();
    await listener.close();
  }
});

it('hears everyone after its connection went half-open (no error, no end: a vanished primary)', async () => {
  const proxy = await startFreezingProxy(Number(new URL(database.url).port || 5432));
  const url = Object.assign(new URL(database.url), { port: String(proxy.port) }).toString();
  const listener = accessChangeListener(url, () => undefined, 100, 300);
  const heard: string[] = [];
  try {
    await listener.subscribe((id) => heard.push(id));
    proxy.freeze();
    await admin.query(`SELECT pg_notify('framedesk_reviewer_access', 'rev_lost')`);
    // Without a liveness check the listener waits on the dead socket forever and hears nothing.
    await next(heard, 1);
    expect(heard[0]).toBe(EVERY_REVIEWER);
  } finally {
    await listener.close();
    await proxy.close();
  }
});
