// Abuse suite, the similar-frame door (issue 40, point 7): an agent has flooded a channel with
// 1,000 frames of one perceptual fingerprint (blank frames all hash alike). A reviewer's detail
// views of those frames read at most MAX_BAND_CANDIDATES index entries per band each, not one per
// frame, while /healthz and another agent carry on. Work is measured in index entries read
// (pg_stat_user_indexes), never in time.
import pg from 'pg';
import { MAX_BAND_CANDIDATES, MAX_SIMILAR } from '@framedesk/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from '../review-harness';
import { duringAbuse, expectHeld } from './abuse-support';
import { reportFigures } from './harness';

const FLOOD = 1_000;
const VIEWS = 20;

describe('abuse: 1,000 identical-hash frames', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let agentKey: string;
  let databaseUrl: string;

  const bandEntriesRead = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        `SELECT coalesce(sum(idx_tup_read), 0) AS n FROM pg_stat_user_indexes
         WHERE relname = 'submission_fingerprints' AND indexrelname LIKE '%band%'`,
      );
      return Number(rows[0]!.n);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    h = await startReviewHarness();
    databaseUrl = h.deps.settings.DATABASE_URL;
    await h.seedReviewer('alice@example.com', 'correct horse battery');
    alice = new ReviewerClient(h.url);
    expect((await alice.login('alice@example.com', 'correct horse battery')).status).toBe(201);
    const flooder = await h.db.repos.agents.create('flooder');
    const { channel } = await h.db.repos.channels.ensure('flooded');
    const bystander = await h.db.repos.agents.create('bystander');
    await h.db.repos.agents.allowChannels(bystander.id, [channel.id]);
    agentKey = (await h.deps.apiKeys.issue(bystander.id)).key;
    // The flood as the worker stores it: processed frames a second apart, every fingerprint 0
    // (a blank frame's dHash). Written on a connection of its own, closed at once, so its
    // statistics are published before the measurement starts.
    const seed = new pg.Client({ connectionString: databaseUrl });
    await seed.connect();
    await seed.query(
      `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, visibility, title, created_at)
       SELECT 'sub_blank' || lpad(g::text, 17, '0'), 'needs_review', 'image', $2, $3, '20260101',
              'promotion_eligible', 'blank ' || g, now() - make_interval(secs => $1 + 1 - g)
       FROM generate_series(1, $1) g`,
      [FLOOD, flooder.id, channel.id],
    );
    await seed.query(
      `INSERT INTO submission_fingerprints
         (submission_id, channel_id, created_at, perceptual_hash, band_0, band_1, band_2, band_3, similar_count)
       SELECT id, channel_id, created_at, 0, 0, 0, 0, 0, 10 FROM submissions WHERE agent_id = $1`,
      [flooder.id],
    );
    await seed.end();
  }, 120_000);
  afterAll(() => h?.close());

  it(`answers ${VIEWS} detail views of flooded frames reading at most ${MAX_BAND_CANDIDATES} entries per band each`, async () => {
    const before = await bandEntriesRead();
    const bystander = async () => {
      const res = await fetch(`${h.url}/v1/frame-submissions?limit=1`, {
        headers: { authorization: `Bearer ${agentKey}` },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`bystander agent got ${res.status}`);
    };
    const { result, report } = await duringAbuse({ url: h.url, bystander }, async () => {
      const similar: number[] = [];
      for (let i = 0; i < VIEWS; i++) {
        const id = `sub_blank${String(FLOOD - i * 7).padStart(17, '0')}`;
        const res = await alice.call('GET', `/review/submissions/${id}`);
        expect(res.status).toBe(200);
        similar.push(((await res.json()) as { similar: unknown[] }).similar.length);
      }
      return similar;
    });
    expect(result).toEqual(Array.from({ length: VIEWS }, () => MAX_SIMILAR));
    // Each view reads MAX_BAND_CANDIDATES entries of each of the 4 band indexes once the flood
    // fills the cap: wait until the API's connections have published that much, then check that
    // it was no more. (Before the cap: an entry per flooded frame, 1,000 or more per view.)
    const cap = VIEWS * 4 * (MAX_BAND_CANDIDATES + 1);
    await expect
      .poll(async () => (await bandEntriesRead()) - before, { timeout: 30_000, interval: 250 })
      .toBeGreaterThanOrEqual(VIEWS * 4 * MAX_BAND_CANDIDATES);
    const read = (await bandEntriesRead()) - before;
    reportFigures('abuse.duplicates', { views: VIEWS, flood: FLOOD, band_entries_read: read, bound: cap, ...report });
    expect(read).toBeLessThanOrEqual(cap);
    expectHeld(report);
  }, 120_000);
});
