// An agent's own record (issue 37): GET /v1/agents/{agent_slug}/feedback against a seeded history,
// and the MCP tool get_feedback returning the same.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@framedesk/domain';
import type { PolicyRouting } from '@framedesk/policies';
import { finishProcessing } from '@framedesk/submissions';
import { startTestApi, type TestApi } from './harness';
import { type ReviewerClient, seedNeedsReview, signIn, TWO_REGIONS, TWO_REGIONS_NORMALISED } from './review-harness';

const PASSWORD = 'a-long-enough-password';

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
    const got = await api.call('GET', '/v1/agents/record-bot/feedback?since=2026-01-01&limit=2', { key: recordKey });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      agent_slug: 'record-bot',
      since: '2026-01-01T00:00:00.000Z',
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
      `/v1/agents/record-bot/feedback?since=2026-01-01&limit=2&cursor=${got.body.next_cursor}`,
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
      (await api.call('GET', '/v1/agents/record-bot/feedback?since=2026-01-01T00:00:00Z', { key: recordKey })).status,
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
      const result = await client.callTool({ name: 'get_feedback', arguments: { since: '2026-01-01', limit: 2 } });
      const rest = await api.call('GET', '/v1/agents/record-bot/feedback?since=2026-01-01&limit=2', { key: recordKey });
      expect(result.structuredContent).toEqual(rest.body);
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
