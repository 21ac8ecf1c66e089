// GET /review/team: per reviewer over a window, the numbers of a seeded history, exactly (issue 37, point 6).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';
const ALICE = 'alice@example.com'; // admin
const RITA = 'rita@example.com';
const BOB = 'bob@example.com';
const REX = 'rex@example.com'; // decides nothing
const DAN = 'dan@example.com'; // disabled, decides nothing: not listed

type Act = [frame: string, who: string, type: string, to: 'promoted' | 'rejected' | null, at: string, data?: object];

/**
 * The history, on 2026-10-01 (UTC). A decision is timed from the reviewer's previous act (a claim
 * or a decision). Rita's: F1 25 s and F2 50 s (from her claims), F3 5 s (bulk, from her claim of
 * F4), F4 20 s (from her decision of F3), F5 left out (35 minutes: a pause), F6 30 s and F7 75 s
 * (first approvals of frames that ask for two). Median of 5, 20, 25, 30, 50, 75 = 27.5. Bob rejects
 * F6 after Rita's approval (her promoted_then_rejected) and promotes F7 (not counted).
 */
const HISTORY: Act[] = [
  ['F8', RITA, 'transition', 'promoted', '2026-09-30T23:59:00Z'], // before the window
  ['F1', RITA, 'claimed', null, '2026-10-01T10:00:00Z'],
  ['F1', RITA, 'transition', 'promoted', '2026-10-01T10:00:25Z'],
  ['F2', RITA, 'claimed', null, '2026-10-01T10:00:40Z'],
  ['F2', RITA, 'transition', 'rejected', '2026-10-01T10:01:30Z'],
  ['F4', RITA, 'claimed', null, '2026-10-01T10:01:35Z'],
  ['F3', RITA, 'transition', 'rejected', '2026-10-01T10:01:40Z', { agrees_with_policy: true }],
  ['F4', RITA, 'transition', 'promoted', '2026-10-01T10:02:00Z', { agrees_with_policy: false }],
  ['F10', RITA, 'claimed', null, '2026-10-01T10:03:00Z'],
  ['F10', RITA, 'released', null, '2026-10-01T10:03:10Z'],
  ['F5', RITA, 'claimed', null, '2026-10-01T10:05:00Z'],
  ['F5', RITA, 'visibility_changed', null, '2026-10-01T10:06:00Z'],
  ['F5', RITA, 'transition', 'promoted', '2026-10-01T10:40:00Z'],
  ['F6', RITA, 'claimed', null, '2026-10-01T10:40:30Z'],
  ['F6', RITA, 'approval', null, '2026-10-01T10:41:00Z'],
  ['F7', RITA, 'approval', null, '2026-10-01T10:42:15Z'],
  ['F6', BOB, 'transition', 'rejected', '2026-10-01T10:50:00Z'],
  ['F7', BOB, 'transition', 'promoted', '2026-10-01T10:51:00Z'],
  ['F11', BOB, 'claimed', null, '2026-10-01T10:51:30Z'],
  ['F11', BOB, 'transition', 'rejected', '2026-10-01T10:52:00Z', { agrees_with_policy: true }],
  // An approval and the transition of the same reviewer on one frame are one decision (the first):
  // the second's policy sample is not counted either.
  ['F12', ALICE, 'approval', null, '2026-10-01T11:00:00Z'],
  ['F12', ALICE, 'transition', 'promoted', '2026-10-01T11:00:00.500Z', { agrees_with_policy: true }],
  ['F9', RITA, 'transition', 'rejected', '2026-10-02T00:00:00Z'], // at `until`: outside
];

const member = (email: string, role: 'admin' | 'reviewer', numbers: object) => ({
  reviewer_id: expect.any(String),
  email,
  name: null,
  role,
  disabled: false,
  ...numbers,
});

describe('GET /review/team', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let rita: ReviewerClient;
  const team = async (who: ReviewerClient, query = '') => {
    const res = await who.call('GET', `/review/team${query}`);
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  beforeAll(async () => {
    h = await startReviewHarness();
    await h.seedReviewer(ALICE, PASSWORD);
    for (const email of [RITA, BOB, REX, DAN])
      await h.seedReviewer(email, PASSWORD, { role: 'reviewer', channels: ['desk-a'] });
    const frames = new Map<string, string>();
    for (const act of HISTORY)
      if (!frames.has(act[0])) frames.set(act[0], await h.seedSubmission({ channel: 'desk-a' }));
    const sql = new pg.Client(h.deps.settings.DATABASE_URL);
    await sql.connect();
    try {
      await sql.query(`UPDATE reviewers SET disabled_at = now() WHERE email = $1`, [DAN]);
      const ids = new Map(
        (await sql.query<{ id: string; email: string }>('SELECT id, email FROM reviewers')).rows.map((r) => [
          r.email,
          r.id,
        ]),
      );
      for (const [frame, who, type, to, at, data] of HISTORY)
        await sql.query(
          `INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, actor_id, data, created_at)
           VALUES ($1, $2, $3::"SubmissionStatus", $4::"SubmissionStatus", 'reviewer', $5, $6::jsonb, $7)`,
          [
            frames.get(frame),
            type,
            to ? 'needs_review' : null,
            to,
            ids.get(who),
            data ? JSON.stringify(data) : null,
            at,
          ],
        );
      // A policy's decision is not a person's.
      await sql.query(
        `INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, data, created_at)
         VALUES ($1, 'transition', 'needs_review', 'promoted', 'system', '{"rule":"trusted"}', '2026-10-01T12:00:00Z')`,
        [frames.get('F1')],
      );
    } finally {
      await sql.end();
    }
    alice = new ReviewerClient(h.url);
    rita = new ReviewerClient(h.url);
    expect((await alice.login(ALICE, PASSWORD)).status).toBe(201);
    expect((await rita.login(RITA, PASSWORD)).status).toBe(201);
  });

  afterAll(async () => {
    await h?.close();
  });

  it("gives each reviewer's numbers over the window, exactly", async () => {
    const { status, body } = await team(alice, '?since=2026-10-01&until=2026-10-01');
    expect(status).toBe(200);
    expect(body).toEqual({
      since: '2026-10-01T00:00:00.000Z',
      until: '2026-10-02T00:00:00.000Z',
      reviewers: [
        member(RITA, 'reviewer', {
          decisions: 7,
          promoted: 5,
          rejected: 2,
          median_seconds_per_decision: 27.5,
          timed_decisions: 6,
          promoted_then_rejected: 1,
          policy_agreement: { agreed: 1, total: 2 },
        }),
        member(BOB, 'reviewer', {
          decisions: 3,
          promoted: 1,
          rejected: 2,
          median_seconds_per_decision: 45,
          timed_decisions: 2,
          promoted_then_rejected: 0,
          policy_agreement: { agreed: 1, total: 1 },
        }),
        member(ALICE, 'admin', {
          decisions: 1,
          promoted: 1,
          rejected: 0,
          median_seconds_per_decision: null,
          timed_decisions: 0,
          promoted_then_rejected: 0,
          policy_agreement: { agreed: 0, total: 0 },
        }),
        member(REX, 'reviewer', {
          decisions: 0,
          promoted: 0,
          rejected: 0,
          median_seconds_per_decision: null,
          timed_decisions: 0,
          promoted_then_rejected: 0,
          policy_agreement: { agreed: 0, total: 0 },
        }),
      ],
    });
  });

  it('narrows to a window of timestamps, and defaults to the last 30 days', async () => {
    // From 10:01:00: F1 is outside; F2 is timed from its claim still (read before the window's start):
    // 5, 20, 30, 50, 75.
    const narrow = await team(alice, '?since=2026-10-01T10:01:00Z&until=2026-10-01T10:45:00Z');
    expect(narrow.body.reviewers[0]).toMatchObject({
      email: RITA,
      decisions: 6,
      timed_decisions: 5,
      median_seconds_per_decision: 30,
    });
    const recent = await team(alice);
    expect(recent.status).toBe(200);
    expect(Date.parse(recent.body.until) - Date.parse(recent.body.since)).toBe(30 * 86_400_000);
    expect(recent.body.reviewers.map((r: { decisions: number }) => r.decisions)).toEqual([0, 0, 0, 0]);
  });

  it('refuses a window it cannot read with a 422 naming the parameter', async () => {
    for (const query of ['?since=yesterday', '?since=2026-02-30', '?since=2026-10-02&until=2026-10-01']) {
      const { status, type, body } = await team(alice, query);
      expect(status).toBe(422);
      expect(type).toContain('application/problem+json');
      expect(body.code).toBe('validation_failed');
      expect(body.errors[0].pointer).toBe('/since');
    }
    expect((await team(alice, '?since=2025-01-01&until=2026-10-01')).status).toBe(422);
  });

  it('is for admins only: 403 problem+json for a reviewer, 401 without a session', async () => {
    const { status, type, body } = await team(rita);
    expect(status).toBe(403);
    expect(type).toContain('application/problem+json');
    expect(body.code).toBe('forbidden');
    expect((await fetch(`${h.url}/review/team`)).status).toBe(401);
  });
});
