// The near-duplicate search under a flood of identical fingerprints (issue 40, point 7): an agent
// sending 1,000 blank frames to one channel must not make every later search read 1,000 index
// entries per band. Measured as index entries read (pg_stat_user_indexes), never as time.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { createDatabase, type Database } from './client';
import { MAX_BAND_CANDIDATES, MAX_SIMILAR } from './fingerprints.repository';

const FLOOD = 1_000;

let database: TestDatabase;
let db: Database;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  // One connection: every statement of the repository runs on the one backend whose statistics
  // the test reads.
  db = createDatabase({ url: database.url, poolSize: 1 });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`INSERT INTO channels (id, slug, name) VALUES ('chn_flood', 'flood', 'flood')`);
  await admin.query(`INSERT INTO agents (id, slug, name) VALUES ('agt_flood', 'flooder', 'flooder')`);
  // FLOOD blank frames a second apart, then the frame whose search is measured.
  await admin.query(
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, visibility, created_at)
     SELECT 'sub_flood' || lpad(g::text, 5, '0'), 'needs_review', 'image', 'agt_flood', 'chn_flood', '20260101',
            'promotion_eligible', now() - make_interval(secs => $1 + 1 - g)
     FROM generate_series(1, $1 + 1) g`,
    [FLOOD],
  );
  await admin.query(
    `INSERT INTO submission_fingerprints
       (submission_id, channel_id, created_at, perceptual_hash, band_0, band_1, band_2, band_3)
     SELECT id, channel_id, created_at, 0, 0, 0, 0, 0 FROM submissions WHERE id <= 'sub_flood' || lpad($1::text, 5, '0')`,
    [FLOOD],
  );
}, 120_000);
afterAll(async () => {
  await admin?.end();
  await db?.close();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function bandIndexEntriesRead(): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `SELECT coalesce(sum(idx_tup_read), 0) AS n FROM pg_stat_user_indexes
     WHERE relname = 'submission_fingerprints' AND indexrelname LIKE '%band%'`,
  );
  return Number(rows[0]!.n);
}

/**
 * Band index entries read by `work`. A backend publishes its statistics when it goes idle, at
 * most once a second: a second's pause, a statement, another second's pause, and everything
 * before is published; `work`'s own are published as soon as it ends.
 */
async function entriesReadBy(work: () => Promise<unknown>): Promise<number> {
  await sleep(1_100);
  await db.ping();
  await sleep(1_100);
  const before = await bandIndexEntriesRead();
  await work();
  await expect.poll(bandIndexEntriesRead, { timeout: 20_000, interval: 100 }).toBeGreaterThan(before);
  await sleep(300);
  return (await bandIndexEntriesRead()) - before;
}

it(`saves and searches a frame among ${FLOOD} identical fingerprints reading at most ${MAX_BAND_CANDIDATES} entries per band`, async () => {
  const id = `sub_flood${String(FLOOD + 1).padStart(5, '0')}`;
  let saved: Awaited<ReturnType<Database['repos']['fingerprints']['save']>> = null;
  const onSave = await entriesReadBy(async () => {
    saved = await db.repos.fingerprints.save({ submissionId: id, perceptualHash: 0n });
  });
  expect(saved).toMatchObject({ submissionId: id, similarCount: MAX_SIMILAR });
  expect(onSave).toBeLessThanOrEqual(4 * (MAX_BAND_CANDIDATES + 1));

  let matches: { submissionId: string; distance: number }[] = [];
  const onSearch = await entriesReadBy(async () => {
    matches = await db.repos.fingerprints.search(saved!);
  });
  expect(matches).toHaveLength(MAX_SIMILAR);
  // The closest (all at distance 0), newest first: the frames just before it.
  expect(matches[0]).toEqual({ submissionId: `sub_flood${String(FLOOD).padStart(5, '0')}`, distance: 0 });
  // Before the cap the search read an index entry per flooded frame (1,000 here).
  expect(onSearch).toBeLessThanOrEqual(4 * (MAX_BAND_CANDIDATES + 1));
  expect(4 * (MAX_BAND_CANDIDATES + 1)).toBeLessThan(FLOOD);
  console.log(`${FLOOD} identical fingerprints: save read ${onSave} band index entries, search ${onSearch}`);
}, 120_000);
