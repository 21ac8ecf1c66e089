// Review policies' side of the review API (docs/policies.md): approvals by two different
// reviewers ("1 of 2"), a sampled frame's decision recorded as agreeing with the policy or not,
// and why a frame is where it is.
import pg from 'pg';
import { lockWaiters } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';

describe('review API with review policies', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let bob: ReviewerClient;

  beforeAll(async () => {
    h = await startReviewHarness();
    alice = await h.signIn('alice@example.com', PASSWORD);
    bob = await h.signIn('bob@example.com', PASSWORD);
  });
  afterAll(async () => h?.close());

  /** A frame the worker routed: needs_review with the policy's columns, as finishProcessing writes them. */
  const routed = (
    approvalsRequired: number,
    policyOutcome: Record<string, unknown> | null,
    extra: { dueAt?: Date; reviewPriority?: number; channel?: string } = {},
  ): Promise<string> =>
    h.seedSubmission({
      channel: extra.channel,
      routing: {
        approvalsRequired,
        policyOutcome,
        ...(extra.dueAt ? { dueAt: extra.dueAt } : {}),
        ...(extra.reviewPriority !== undefined ? { reviewPriority: extra.reviewPriority } : {}),
      },
    });

  it('two different reviewers must promote; the same one twice gets 409 already_approved; the API says "1 of 2"', async () => {
    const id = await routed(2, { rule: 'urgent', action: 'review', signals: { blank: false } });
    const first = await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      status: 'needs_review',
      approvals: { required: 2, approved: 1 },
      policy: { rule: 'urgent' },
    });
    const again = await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'already_approved' });
    const queue = (await (await bob.call('GET', '/review/queue')).json()) as {
      items: { id: string; approvals: unknown }[];
    };
    expect(queue.items.find((i) => i.id === id)?.approvals).toEqual({ required: 2, approved: 1 });
    const second = await bob.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
    expect(await second.json()).toMatchObject({ status: 'promoted', review: { decision: 'promoted', rule: null } });
    const events = await h.db.repos.submissions.events(id);
    expect(events.map((e) => [e.type, e.actorType])).toEqual([
      ['transition', 'agent'],
      ['transition', 'system'],
      ['transition', 'system'],
      ['approval', 'reviewer'],
      ['transition', 'reviewer'],
    ]);
  });

  it('a reject by either reviewer rejects a frame that needs two approvals', async () => {
    const id = await routed(2, null);
    await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
    const rejected = await bob.call('POST', `/review/submissions/${id}/decision`, {
      decision: 'reject',
      reason: 'Low quality',
    });
    expect(await rejected.json()).toMatchObject({ status: 'rejected' });
  });

  it("a sampled frame's decision is recorded as agreeing with the policy's suggestion, or not", async () => {
    const sampled = { rule: 'trusted', action: 'review', sampled: true, suggestion: 'promote', signals: {} };
    const agree = await routed(1, sampled);
    const disagree = await routed(1, sampled);
    await alice.call('POST', `/review/submissions/${agree}/decision`, { decision: 'promote' });
    await alice.call('POST', `/review/submissions/${disagree}/decision`, { decision: 'reject', reason: 'Low quality' });
    const last = async (id: string) => (await h.db.repos.submissions.events(id)).at(-1);
    expect((await last(agree))?.data).toMatchObject({
      policy_suggestion: 'promote',
      agrees_with_policy: true,
      rule: 'trusted',
    });
    expect((await last(disagree))?.data).toMatchObject({ policy_suggestion: 'promote', agrees_with_policy: false });
  });

  it('the queue sorts overdue first, then due, then by priority, then the rest; pages keep that order; overdue is counted', async () => {
    const hour = 3_600_000;
    const plain = await routed(1, null, { channel: 'due-desk' });
    const high = await routed(1, null, { channel: 'due-desk', reviewPriority: 1 });
    const low = await routed(1, null, { channel: 'due-desk', reviewPriority: -1 });
    const later = await routed(1, null, { channel: 'due-desk', dueAt: new Date(Date.now() + 2 * hour) });
    const overdue = await routed(1, null, { channel: 'due-desk', dueAt: new Date(Date.now() - hour) });
    const expected = [overdue, later, high, plain, low];
    const all = (await (await alice.call('GET', '/review/queue?channel=due-desk')).json()) as {
      items: { id: string; due_at: string | null; priority: string }[];
    };
    expect(all.items.map((i) => i.id)).toEqual(expected);
    expect(all.items[0]).toMatchObject({ priority: 'normal', due_at: expect.any(String) });
    expect(all.items[2]?.priority).toBe('high');
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (
        await alice.call('GET', `/review/queue?channel=due-desk&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()) as { items: { id: string }[]; next_cursor: string | null };
      paged.push(...page.items.map((i) => i.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(expected);
    expect(await h.db.repos.policies.overduePerChannel(new Date())).toContainEqual({ channel: 'due-desk', overdue: 1 });
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toMatch(/framedesk_review_overdue\{channel="due-desk",service="api"\} 1/);
  });

  /** framedesk_policy_samples_total of a rule, by agrees, as the API's /metrics reads. */
  const samplesOf = async (rule: string) => {
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const count = (agrees: boolean) =>
      Number(
        new RegExp(`framedesk_policy_samples_total\\{rule="${rule}",agrees="${agrees}"[^}]*\\} (\\d+)`).exec(
          text,
        )?.[1] ?? 0,
      );
    return { agrees: count(true), disagrees: count(false) };
  };

  it('a frame held back by a scoring failure carries a suggestion but is no sample: its decision is not judged', async () => {
    const held = { rule: 'held-rule', action: 'review', suggestion: 'reject', held: 'scores unavailable', signals: {} };
    const id = await routed(1, held);
    const decided = await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
    expect(decided.status).toBe(200);
    const data = (await h.db.repos.submissions.events(id)).at(-1)?.data as Record<string, unknown>;
    expect(data).toMatchObject({ policy_suggestion: 'reject', rule: 'held-rule' });
    expect(data).not.toHaveProperty('agrees_with_policy');
    expect(await samplesOf('held-rule')).toEqual({ agrees: 0, disagrees: 0 });
  });

  it('a sampled decision that loses its transition (409 invalid_transition) is not counted for agreement', async () => {
    const sampled = { rule: 'race-rule', action: 'review', sampled: true, suggestion: 'promote', signals: {} };
    const id = await routed(1, sampled);
    // Hold the frame's row so both decisions pass their checks and then wait on its lock.
    const holder = new pg.Client({ connectionString: h.deps.settings.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM submissions WHERE id = $1 FOR UPDATE', [id]);
      const both = Promise.all([
        alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' }),
        bob.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' }),
      ]);
      await expect.poll(() => lockWaiters(holder), { timeout: 60_000 }).toBe(2);
      await holder.query('COMMIT');
      const statuses = (await both).map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409]);
    } finally {
      await holder.end();
    }
    expect(await samplesOf('race-rule')).toEqual({ agrees: 1, disagrees: 0 });
  });
});
