// An agent's own record (issue 37): GET /v1/agents/{agent_slug}/feedback against a seeded history,
// and the MCP tool get_feedback returning the same.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@framedesk/domain';
import type { PolicyRouting } from '@framedesk/policies';
import { finishProcessing } from '@framedesk/submissions';
import { startTestApi, type TestApi } from './harness';
import { type ReviewerClient, seedNeedsReview, signIn, TWO_REGIONS, TWO_REGIONS_NORMALISED } from './review-harness';

const PASSWORD = 'a-long-enough-password';
/** A window start well inside the 365 days `since` may reach back, whatever the day the test runs. */
const SINCE = new Date(Date.now() - 300 * 86_400_000).toISOString().slice(0, 10);

let api: TestApi;
let rita: ReviewerClient;

beforeAll(async () => {
  api = await startTestApi();
  await api.createAgent('bot', ['news']);
  rita = await signIn(api, 'rita@example.com', PASSWORD, { role: 'reviewer', channels: ['news'] });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

/** A frame of `agent` in `channel`, waiting for review (as the worker leaves it). */
const seed = (agent: string, channel = 'news') => seedNeedsReview(api.deps.db, { agent, channel });

describe('GET /v1/agents/{agent_slug}/feedback', () => {
  let recordKey: string;
  const ids: string[] = [];

  beforeAll(async () => {
    recordKey = await api.createAgent('record-bot', ['news']);
    const decide = (id: string, body: Record<string, unknown>) =>
      rita.call('POST', `/review/submissions/${id}/decision`, body);
    // Four decided frames, 60, 120, 180 and 30 seconds after they reached needs_review.
    const decisions = [
      { decision: 'reject', reason: 'Low quality', note: 'Too dark', regions: TWO_REGIONS },
      { decision: 'reject', reason: 'Low quality' },
      { decision: 'reject', reason: 'Duplicate' },
      { decision: 'promote' },
    ];
    for (const [i, body] of decisions.entries()) {
      const id = await seed('record-bot');
      ids.push(id);
      expect((await decide(id, body)).status).toBe(200);
      const seconds = [60, 120, 180, 30][i]!;
      await api.database.query(
        `UPDATE submission_events e SET created_at = s.reviewed_at - make_interval(secs => $2)
         FROM submissions s WHERE s.id = e.submission_id AND e.submission_id = $1 AND e.to_status = 'needs_review'`,
        [id, seconds],
      );
      // Decided in this order, a minute apart: the latest rejection is the third frame.
      await api.database.query(
        `UPDATE submissions SET reviewed_at = reviewed_at + make_interval(mins => $2) WHERE id = $1`,
        [id, i],
      );
      await api.database.query(
        `UPDATE submission_events e SET created_at = created_at + make_interval(mins => $2) WHERE submission_id = $1`,
        [id, i],
      );
    }
    ids.push(await seed('record-bot'));
    const failed = await seed('record-bot');
    await api.deps.db.transition({ id: failed, to: 'failed', actor: { type: 'system' } });
    // Sent and rejected long before the window: outside every number.
    const old = await seed('record-bot');
    await decide(old, { decision: 'reject', reason: 'Other', note: 'old' });
    await api.database.query(
      `UPDATE submissions SET created_at = '2020-01-01', reviewed_at = '2020-01-02' WHERE id = $1`,
      [old],
    );
  });

  it('counts, shares, top reasons and the median match the seeded history; rejections page newest first', async () => {
    const got = await api.call('GET', `/v1/agents/record-bot/feedback?since=${SINCE}&limit=2`, { key: recordKey });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      agent_slug: 'record-bot',
      since: `${SINCE}T00:00:00.000Z`,
      counts: { needs_review: 1, promoted: 1, rejected: 3, failed: 1, received: 0, media_processing: 0 },
      total: 6,
      promoted_share: 0.25,
      rejected_share: 0.75,
      top_reasons: [
        { reason: 'Low quality', count: 2 },
        { reason: 'Duplicate', count: 1 },
      ],
      median_seconds_to_decision: 90,
    });
    expect(got.body.rejections.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const next = await api.call(
      'GET',
      `/v1/agents/record-bot/feedback?since=${SINCE}&limit=2&cursor=${got.body.next_cursor}`,
      { key: recordKey },
    );
    expect(next.body.rejections).toEqual([
      expect.objectContaining({
        id: ids[0],
        reason: 'Low quality',
        note: 'Too dark',
        regions: TWO_REGIONS_NORMALISED,
        decided_by: 'person',
        channel_slug: 'news',
      }),
    ]);
    expect(next.body.next_cursor).toBeNull();
    expect(got.text).not.toContain('rita');
    expect(api.contractViolations()).toEqual([]);
  });

  it('is the key’s own agent only (404 for any other slug) and refuses a bad since', async () => {
    for (const slug of ['bot', 'nobody']) {
      const res = await api.call('GET', `/v1/agents/${slug}/feedback`, { key: recordKey });
      expect([res.status, res.body.code]).toEqual([404, 'not_found']);
    }
    const bad = await api.call('GET', '/v1/agents/record-bot/feedback?since=last-week', { key: recordKey });
    expect([bad.status, bad.body.code]).toEqual([422, 'validation_failed']);
    expect(
      (await api.call('GET', `/v1/agents/record-bot/feedback?since=${SINCE}T00:00:00Z`, { key: recordKey })).status,
    ).toBe(200);
    expect((await api.call('GET', '/v1/agents/record-bot/feedback')).status).toBe(401);
  });

  it('the MCP tool get_feedback returns the endpoint’s data', async () => {
    const client = new Client({ name: 'feedback-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', api.url), {
        requestInit: { headers: { Authorization: `Bearer ${recordKey}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'get_feedback', arguments: { since: SINCE, limit: 2 } });
      const rest = await api.call('GET', `/v1/agents/record-bot/feedback?since=${SINCE}&limit=2`, { key: recordKey });
      expect(result.structuredContent).toEqual(rest.body);
      // A model names the agent as the REST path and submit_frame do: its own, or not_found.
      const named = await client.callTool({
        name: 'get_feedback',
        arguments: { agent_slug: 'record-bot', since: SINCE, limit: 2 },
      });
      expect(named.structuredContent).toEqual(rest.body);
      const other = await client.callTool({ name: 'get_feedback', arguments: { agent_slug: 'nodesk-bot' } });
      expect([other.isError, other.structuredContent]).toEqual([true, expect.objectContaining({ code: 'not_found' })]);
    } finally {
      await client.close();
    }
  });
});

describe('decided_by (issue 43, point 16)', () => {
  let key: string;
  beforeAll(async () => {
    key = await api.createAgent('nodesk-bot', ['news']);
  });

  /** A frame of nodesk-bot whose media are processed: finishProcessing moves it as the worker does. */
  async function processed(input: { requiresReview: boolean; policy?: PolicyRouting }): Promise<string> {
    const db = api.deps.db;
    const id = newId('submission');
    const agent = (await db.repos.agents.findBySlug('nodesk-bot'))!;
    const { channel } = await db.repos.channels.ensure('news');
    await db.repos.submissions.create(
      {
        id,
        status: 'received',
        mediaType: 'image',
        agentId: agent.id,
        channelId: channel.id,
        date: '20261101',
        metadata: {},
        visibility: 'promotion_eligible',
      },
      { type: 'agent', id: agent.id },
    );
    expect((await db.transition({ id, to: 'media_processing', actor: { type: 'system' } })).ok).toBe(true);
    const outcome = await finishProcessing(db, {
      id,
      requiresReview: input.requiresReview,
      reason: null,
      patch: {},
      data: {},
      ...(input.policy ? { policy: input.policy } : {}),
    });
    expect(outcome.ok).toBe(true);
    return id;
  }

  it('tells a channel that does not require review from a policy rule and from a person', async () => {
    const byChannel = await processed({ requiresReview: false });
    const byRule = await processed({
      requiresReview: true,
      policy: {
        to: 'rejected',
        reason: 'Low quality',
        patch: { reviewRule: 'blank', reviewReason: 'Low quality', policyOutcome: { rule: 'blank', action: 'reject' } },
        data: { rule: 'blank' },
      },
    });
    const channelFrame = await api.call('GET', `/v1/frame-submissions/${byChannel}`, { key });
    expect(channelFrame.body.review).toMatchObject({ decision: 'promoted', decided_by: 'channel', rule: null });
    const ruleFrame = await api.call('GET', `/v1/frame-submissions/${byRule}`, { key });
    expect(ruleFrame.body.review).toMatchObject({ decision: 'rejected', decided_by: 'policy', rule: 'blank' });
    const record = await api.call('GET', '/v1/agents/nodesk-bot/feedback', { key });
    expect(record.body.rejections).toEqual([expect.objectContaining({ id: byRule, decided_by: 'policy' })]);
    expect(api.contractViolations()).toEqual([]);
  });
});

describe('the feedback record is bounded (issue 43, point 13)', () => {
  let key: string;
  let other: string;
  let otherFrame: string;
  beforeAll(async () => {
    key = await api.createAgent('busy-bot', ['news']);
    other = await api.createAgent('bystander-bot', ['news']);
    otherFrame = await seed('bystander-bot');
  });

  const FEEDBACK_SQL = '%count(*)::int AS n FROM submissions%';
  /** Statements of this test's database waiting for a lock, those of the feedback's first read or the others. */
  const waiting = async (feedback: boolean) => {
    const [row] = await api.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND (query LIKE $1) = $2`,
      [FEEDBACK_SQL, feedback],
    );
    return row!.n;
  };

  /** Runs `work` while another session holds the submissions table: every read of it waits. */
  async function whileSubmissionsLocked(work: () => Promise<void>): Promise<void> {
    const holder = new pg.Client({ connectionString: api.database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE submissions IN ACCESS EXCLUSIVE MODE');
      await work();
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  }

  const feedback = (path = '/v1/agents/busy-bot/feedback') =>
    fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const mcp = (body: unknown) =>
    fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });
  const call = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });

  it('since reaches at most 365 days back: beyond is 422 naming the field, over REST and MCP', async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const far = await api.call('GET', `/v1/agents/busy-bot/feedback?since=${day(400)}`, { key });
    expect([far.status, far.body.code, far.body.errors]).toEqual([
      422,
      'validation_failed',
      [{ pointer: '/query/since', detail: expect.stringContaining('at most 365 days ago') }],
    ]);
    expect((await api.call('GET', `/v1/agents/busy-bot/feedback?since=${day(364)}`, { key })).status).toBe(200);
    const overMcp = (await (await mcp(call(1, 'get_feedback', { since: day(400) }))).json()) as {
      result: { isError: boolean; structuredContent: { code: string } };
    };
    expect([overMcp.result.isError, overMcp.result.structuredContent.code]).toEqual([true, 'validation_failed']);
  });

  it('REST and MCP requests of one key share MCP_CONCURRENT_PER_KEY: one past it is 429, another key is served', async () => {
    const max = api.deps.settings.MCP_CONCURRENT_PER_KEY;
    let holding: Promise<Response>[] = [];
    let bystander: Promise<Response> | undefined;
    await whileSubmissionsLocked(async () => {
      holding = Array.from({ length: max }, () => feedback());
      await expect.poll(() => waiting(true), { timeout: 30_000 }).toBe(max);
      const overMcp = await mcp(call(1, 'list_channels', {}));
      const overRest = await feedback();
      expect([overMcp.status, overMcp.headers.get('retry-after'), overRest.status]).toEqual([429, '1', 429]);
      expect(((await overRest.json()) as { code: string }).code).toBe('rate_limited');
      // Another key has places of its own: its read reaches the database (and waits for the lock).
      bystander = fetch(`${api.url}/v1/agents/bystander-bot/feedback`, {
        headers: { authorization: `Bearer ${other}` },
      });
      await expect.poll(() => waiting(true), { timeout: 30_000 }).toBe(max + 1);
    });
    expect((await Promise.all([...holding, bystander!])).map((r) => r.status)).toEqual(
      Array.from({ length: max + 1 }, () => 200),
    );
    expect((await mcp(call(2, 'list_channels', {}))).status).toBe(200);
  });

  it('a batch of get_feedback calls runs them one after another, never all at once', async () => {
    const calls = 6;
    let answer: Promise<Response> | undefined;
    await whileSubmissionsLocked(async () => {
      answer = mcp(Array.from({ length: calls }, (_, i) => call(i + 1, 'get_feedback', { limit: 1 })));
      await expect.poll(() => waiting(true), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      // A later request of another key, sent once the batch is waiting, reaches the lock too: by then
      // every call the batch had started would be waiting beside it.
      const later = fetch(`${api.url}/v1/frame-submissions/${otherFrame}`, {
        headers: { authorization: `Bearer ${other}` },
      });
      await expect.poll(() => waiting(false), { timeout: 30_000 }).toBe(1);
      expect(await waiting(true)).toBe(1);
      void later;
    });
    const body = (await (await answer!).json()) as {
      id: number;
      result: { structuredContent: { agent_slug: string } };
    }[];
    expect(body.map((m) => [m.id, m.result.structuredContent.agent_slug]).sort()).toEqual(
      Array.from({ length: calls }, (_, i) => [i + 1, 'busy-bot']),
    );
  });
});
