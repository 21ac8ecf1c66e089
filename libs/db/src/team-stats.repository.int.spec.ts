// teamStats.perReviewer runs in its own transaction (JIT off) or as it is inside a caller's. Prisma 7's
// transaction client has a `$transaction` of its own, so telling the two apart by it sent a caller's
// transaction client into a nested transaction, after which every later call on the client failed
// ("Transaction already closed").
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { createDatabase, type Database } from './client';

let database: TestDatabase;
let db: Database;
const window = { since: new Date('2026-10-01T00:00:00Z'), until: new Date('2026-10-02T00:00:00Z') };

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolSize: 2 });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    await admin.query(`INSERT INTO channels (id, slug, name) VALUES ('chn_t', 'team', 'team')`);
    await admin.query(`INSERT INTO agents (id, slug, name) VALUES ('agt_t', 'cam', 'cam')`);
    await admin.query(`INSERT INTO reviewers (id, email, role) VALUES ('rv_t', 'rita@example.com', 'reviewer')`);
    await admin.query(
      `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, visibility)
       VALUES ('sub_t', 'promoted', 'image', 'agt_t', 'chn_t', '20261001', 'promotion_eligible')`,
    );
    await admin.query(
      `INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, actor_id, created_at)
       VALUES ('sub_t', 'claimed', NULL, NULL, 'reviewer', 'rv_t', '2026-10-01T10:00:00Z'),
              ('sub_t', 'transition', 'needs_review', 'promoted', 'reviewer', 'rv_t', '2026-10-01T10:00:12Z')`,
    );
  } finally {
    await admin.end();
  }
}, 120_000);
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

it("gives the same numbers inside a caller's transaction and on its own, and the client stays usable", async () => {
  const expected = [
    expect.objectContaining({ reviewerId: 'rv_t', decisions: 1, promoted: 1, timed: 1, medianSeconds: 12 }),
  ];
  expect(await db.transaction((repos) => repos.teamStats.perReviewer(window))).toEqual(expected);
  expect(await db.repos.teamStats.perReviewer(window)).toEqual(expected);
  expect(await db.repos.teamStats.perReviewer(window)).toEqual(expected);
});
