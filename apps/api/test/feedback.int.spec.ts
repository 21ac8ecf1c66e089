// Decisions that teach the agents (issue 37): a rejection's note and regions reach the agent's GET
// exactly and without any reviewer identity; reviewers' internal notes stay among reviewers.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelReasonsService, REJECT_REASONS } from '@framedesk/review';
import { REVISIONS_PER_FRAME_MAX } from '@framedesk/submissions';
import { makePng } from '@framedesk/testing';
import { frameForm, startTestApi, type TestApi } from './harness';
import { ReviewerClient, seedNeedsReview, signIn, TWO_REGIONS, TWO_REGIONS_NORMALISED } from './review-harness';

const PASSWORD = 'a-long-enough-password';

let api: TestApi;
let key: string;
let rita: ReviewerClient;
let otherKey: string;

beforeAll(async () => {
  api = await startTestApi();
  key = await api.createAgent('bot', ['news', 'sport']);
  otherKey = await api.createAgent('other-bot', ['news']);
  rita = await signIn(api, 'rita@example.com', PASSWORD, { role: 'reviewer', channels: ['news'] });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

/** A frame of `agent` in `channel`, waiting for review (as the worker leaves it). */
const seed = (agent = 'bot', channel = 'news') => seedNeedsReview(api.deps.db, { agent, channel });

describe('feedback on a rejection', () => {
  it('reaches the agent exactly, normalised, with the note apart from the reason and no reviewer identity', async () => {
    const id = await seed();
    const decided = await rita.call('POST', `/review/submissions/${id}/decision`, {
      decision: 'reject',
      reason: 'Low quality',
      note: 'The logo is cut off on the left; crop wider.',
      regions: TWO_REGIONS,
    });
    expect(decided.status).toBe(200);
    const detail = (await decided.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(detail['review']).toMatchObject({
      reason: 'Low quality',
      note: 'The logo is cut off on the left; crop wider.',
      regions: TWO_REGIONS_NORMALISED,
      reviewer_email: 'rita@example.com',
    });
    const decision = detail['events'].find((e: { to: string }) => e.to === 'rejected');
    expect(decision).toMatchObject({
      reason: 'Low quality',
      note: detail['review'].note,
      regions: TWO_REGIONS_NORMALISED,
    });

    const got = await api.call('GET', `/v1/frame-submissions/${id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.review).toEqual({
      decision: 'rejected',
      reason: 'Low quality',
      reviewed_at: expect.any(String),
      decided_at: got.body.review.reviewed_at,
      decided_by: 'person',
      rule: null,
      note: 'The logo is cut off on the left; crop wider.',
      regions: TWO_REGIONS_NORMALISED,
      moments: [],
    });
    const reviewer = await api.deps.db.repos.reviewers.findByEmail('rita@example.com');
    expect(got.text).not.toContain('rita');
    expect(got.text).not.toContain(reviewer!.id);
    expect(api.contractViolations()).toEqual([]);
  });

  it('carries the same note and regions on every frame of a bulk rejection', async () => {
    const ids = [await seed(), await seed()];
    const res = await rita.call('POST', '/review/decisions', {
      ids,
      decision: 'reject',
      reason: 'Off-topic for the channel',
      note: 'Not news',
      regions: TWO_REGIONS.slice(0, 1),
    });
    expect(res.status).toBe(200);
    for (const id of ids) {
      const got = await api.call('GET', `/v1/frame-submissions/${id}`, { key });
      expect(got.body.review).toMatchObject({ note: 'Not news', regions: TWO_REGIONS_NORMALISED.slice(0, 1) });
    }
  });

  it('refuses regions outside the image, without a size or a label, and stores nothing', async () => {
    const id = await seed();
    for (const region of [
      { x: 0.8, y: 0, width: 0.3, height: 0.1, label: 'a' },
      { x: 0.1, y: 0.1, width: 0, height: 0.1, label: 'a' },
      { x: 0.1, y: 0.1, width: 0.1, height: 0.1, label: '' },
    ]) {
      const res = await rita.call('POST', `/review/submissions/${id}/decision`, {
        decision: 'reject',
        reason: 'Low quality',
        regions: [region],
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { code: string }).code).toBe('validation_failed');
    }
    expect((await api.deps.db.repos.submissions.findById(id))?.status).toBe('needs_review');
  });
});

describe('internal notes', () => {
  it('are listed in time order in the detail view and never reach the agent', async () => {
    const id = await seed();
    for (const body of ['Looks staged to me', 'Agreed, ask for a revision']) {
      const res = await rita.call('POST', `/review/submissions/${id}/notes`, { body });
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({ body, author_email: 'rita@example.com' });
    }
    expect((await rita.call('POST', `/review/submissions/${id}/notes`, { body: ' ' })).status).toBe(422);
    const listed = (await (await rita.call('GET', `/review/submissions/${id}/notes`)).json()) as {
      notes: { body: string }[];
    };
    expect(listed.notes.map((n) => n.body)).toEqual(['Looks staged to me', 'Agreed, ask for a revision']);
    const detail = (await (await rita.call('GET', `/review/submissions/${id}`)).json()) as {
      internal_notes: { body: string; created_at: string }[];
    };
    expect(detail.internal_notes.map((n) => n.body)).toEqual(listed.notes.map((n) => n.body));
    await rita.call('POST', `/review/submissions/${id}/decision`, { decision: 'reject', reason: 'Duplicate' });
    const got = await api.call('GET', `/v1/frame-submissions/${id}`, { key });
    expect(got.text).not.toContain('staged');
    // Outside the reviewer's channels a frame's notes are as missing as the frame.
    const elsewhere = await seed('bot', 'sport');
    expect((await rita.call('GET', `/review/submissions/${elsewhere}/notes`)).status).toBe(404);
    expect((await rita.call('POST', `/review/submissions/${elsewhere}/notes`, { body: 'x' })).status).toBe(404);
  });
});

describe('reject reasons per channel', () => {
  it('`channel reasons set` restricts the reasons the review API accepts; old frames keep theirs', async () => {
    const reasons = channelReasonsService(api.deps.db, 'cli:test');
    await api.deps.db.repos.channels.ensure('sport');
    const admin = await signIn(api, 'ada@example.com', PASSWORD);
    const before = await seed('bot', 'sport');
    const first = await admin.call('POST', `/review/submissions/${before}/decision`, {
      decision: 'reject',
      reason: 'Low quality',
    });
    expect(first.status).toBe(200);
    expect(await reasons.set('sport', ['Blurry', ' Wrong team '])).toEqual({
      channel: 'sport',
      reasons: ['Blurry', 'Wrong team'],
      default: false,
    });

    const id = await seed('bot', 'sport');
    const refused = await admin.call('POST', `/review/submissions/${id}/decision`, {
      decision: 'reject',
      reason: 'Low quality',
    });
    expect(refused.status).toBe(422);
    const problem = (await refused.json()) as { code: string; detail: string };
    expect(problem.code).toBe('validation_failed');
    expect(problem.detail).toContain('Blurry, Wrong team');
    const batch = (await (
      await admin.call('POST', '/review/decisions', { ids: [id], decision: 'reject', reason: 'Low quality' })
    ).json()) as { results: { outcome: string; code?: string }[] };
    expect(batch.results).toEqual([expect.objectContaining({ outcome: 'failed', code: 'validation_failed' })]);
    expect((await api.deps.db.repos.submissions.findById(id))?.status).toBe('needs_review');

    const detail = (await (await admin.call('GET', `/review/submissions/${id}`)).json()) as {
      reject_reasons: string[];
    };
    expect(detail.reject_reasons).toEqual(['Blurry', 'Wrong team']);
    const channels = (await (await admin.call('GET', '/review/channels')).json()) as {
      channels: { slug: string; reject_reasons: string[] }[];
    };
    expect(Object.fromEntries(channels.channels.map((c) => [c.slug, c.reject_reasons]))).toMatchObject({
      sport: ['Blurry', 'Wrong team'],
      news: [...REJECT_REASONS],
    });
    const ok = await admin.call('POST', `/review/submissions/${id}/decision`, { decision: 'reject', reason: 'Blurry' });
    expect(ok.status).toBe(200);
    // The earlier frame's reason is no longer on the list, and still reads as it was.
    const old = await api.call('GET', `/v1/frame-submissions/${before}`, { key });
    expect(old.body.review.reason).toBe('Low quality');

    expect(await reasons.set('sport', null)).toMatchObject({ default: true, reasons: [...REJECT_REASONS] });
    const [changes] = await api.database.query(
      "SELECT count(*)::int AS n FROM account_events WHERE action = 'reject_reasons_set'",
    );
    expect(changes).toEqual({ n: 2 });
  });
});

/** POST /v1/frame-submissions as `agent` (its key), with `extra` metadata. */
async function submit(extra: Record<string, unknown>, agent = 'bot', channel = 'news') {
  return api.call('POST', '/v1/frame-submissions', {
    key: agent === 'bot' ? key : otherKey,
    headers: { 'idempotency-key': crypto.randomUUID() },
    body: frameForm(
      { agent_slug: agent, channel_slug: channel, date: '20261122', title: 'Take two', ...extra },
      makePng(32, 24, { seed: 3 }),
    ),
  });
}

describe('revisions', () => {
  it('refuse another agent’s frame, a frame still in review, another channel and a missing id, storing nothing', async () => {
    const othersRejected = await seed('other-bot');
    await rita.call('POST', `/review/submissions/${othersRejected}/decision`, {
      decision: 'reject',
      reason: 'Duplicate',
    });
    const inReview = await seed();
    const sport = await seed('bot', 'sport');
    await api.deps.db.transition({ id: sport, to: 'promoted', actor: { type: 'system' } });
    const count = async () => (await api.database.query('SELECT count(*)::int AS n FROM submissions'))[0].n as number;
    const files = (await api.storedFiles()).length;
    const before = await count();
    for (const [revisionOf, rule] of [
      [othersRejected, 'a frame of your own'],
      [inReview, 'already rejected or promoted'],
      [sport, 'in the same channel'],
      ['sub_0000000000000000000000', 'a frame of your own'],
    ] as const) {
      const res = await submit({ revision_of: revisionOf });
      expect([res.status, res.body.code]).toEqual([422, 'invalid_revision']);
      expect(res.body.detail).toContain(rule);
    }
    expect((await submit({ revision_of: 'not-an-id' })).body.code).toBe('validation_failed');
    expect(await count()).toBe(before);
    expect((await api.storedFiles()).length).toBe(files);
    expect(api.contractViolations()).toEqual([]);
  });

  it('links a revision of a rejected frame: the agent sees revision_of, the review API the version stack', async () => {
    const first = await seed();
    await rita.call('POST', `/review/submissions/${first}/decision`, {
      decision: 'reject',
      reason: 'Low quality',
      note: 'Crop wider',
      regions: TWO_REGIONS,
    });
    const res = await submit({ revision_of: first });
    expect(res.status).toBe(202);
    expect(res.body.revision_of).toBe(first);
    const revision = res.body.id as string;
    expect((await api.call('GET', `/v1/frame-submissions/${revision}`, { key })).body.revision_of).toBe(first);
    // The revision is not in review yet (no worker here): put it there as the worker would.
    for (const to of ['media_processing', 'needs_review'] as const)
      await api.deps.db.transition({ id: revision, to, actor: { type: 'system' } });

    const detail = (await (await rita.call('GET', `/review/submissions/${revision}`)).json()) as {
      revision_of: string;
      versions: { id: string; current: boolean; status: string; review: unknown }[];
    };
    expect(detail.revision_of).toBe(first);
    expect(detail.versions).toEqual([
      expect.objectContaining({
        id: first,
        current: false,
        status: 'rejected',
        revision_of: null,
        review: expect.objectContaining({ reason: 'Low quality', note: 'Crop wider', regions: TWO_REGIONS_NORMALISED }),
      }),
      expect.objectContaining({
        id: revision,
        current: true,
        status: 'needs_review',
        revision_of: first,
        review: null,
      }),
    ]);
    // The earlier frame's stack shows its revision too.
    const earlier = (await (await rita.call('GET', `/review/submissions/${first}`)).json()) as {
      versions: { id: string }[];
    };
    expect(earlier.versions.map((v) => v.id)).toEqual([first, revision]);
    expect(api.contractViolations()).toEqual([]);
  });
});

describe('a version stack is bounded in breadth (issue 43, point 15)', () => {
  it('a frame takes at most REVISIONS_PER_FRAME_MAX revisions: the next is 422 revision_limit_reached, storing nothing', async () => {
    const first = await seed();
    await rita.call('POST', `/review/submissions/${first}/decision`, { decision: 'reject', reason: 'Low quality' });
    for (let i = 0; i < REVISIONS_PER_FRAME_MAX; i++) expect((await submit({ revision_of: first })).status).toBe(202);
    const count = async () => (await api.database.query('SELECT count(*)::int AS n FROM submissions'))[0].n as number;
    const before = await count();
    const refused = await submit({ revision_of: first });
    expect([refused.status, refused.body.code, refused.body.errors]).toEqual([
      422,
      'revision_limit_reached',
      [{ pointer: '/metadata/revision_of', detail: expect.stringContaining(`${REVISIONS_PER_FRAME_MAX} revisions`) }],
    ]);
    expect(await count()).toBe(before);
    expect(api.contractViolations()).toEqual([]);
  });

  it('the stack read forward stops at 50 versions however many revisions each frame has', async () => {
    const root = await seed();
    await rita.call('POST', `/review/submissions/${root}/decision`, { decision: 'reject', reason: 'Low quality' });
    // Rows written before the breadth limit existed: 80 revisions of one frame.
    await api.database.query(
      `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, visibility, revision_of)
       SELECT 'sub_' || substr(md5(g::text || $1), 1, 22), 'needs_review', 'image', agent_id, channel_id, date, '{}',
              'promotion_eligible', id
         FROM submissions, generate_series(1, 80) g WHERE id = $1`,
      [root],
    );
    const detail = (await (await rita.call('GET', `/review/submissions/${root}`)).json()) as { versions: unknown[] };
    expect(detail.versions.length).toBeLessThanOrEqual(51);
    expect(detail.versions.length).toBeGreaterThan(1);
  });
});

describe('GET /review/audit (the workbench download)', () => {
  it('gives admins the trail of a channel and a date range as CSV; a reviewer gets 403', async () => {
    const admin = new ReviewerClient(api.url);
    expect((await admin.login('ada@example.com', PASSWORD)).status).toBe(201);
    const res = await admin.call('GET', '/review/audit?channel=sport&since=2026-01-01&format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row['channel']).toBe('sport');
    expect(rows.filter((r) => r['action'] === 'reject_reasons_set').map((r) => r['who'])).toEqual([
      'cli:test',
      'cli:test',
    ]);
    expect(rows.some((r) => r['to'] === 'rejected' && r['who'] === 'ada@example.com')).toBe(true);
    expect((await rita.call('GET', '/review/audit')).status).toBe(403);
    expect((await admin.call('GET', '/review/audit?format=xml')).status).toBe(422);
  });
});
