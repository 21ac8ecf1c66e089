// The Policies screen's side of the review API (issue 36): an admin reads, checks, simulates, saves
// and clears a channel's policy with the CLI's validation and store; a reviewer may not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';
const CHANNEL = 'policy-desk';
const BASE = `/review/channels/${CHANNEL}/policy`;

const GOOD = {
  rules: [
    { name: 'wide', when: 'frame.media.width >= 0', action: 'promote' },
    { name: 'urgent', when: 'frame.agent == "nobody"', action: 'review', approvals: 2 },
  ],
};
const BROKEN = {
  rules: [
    { name: 'wide', when: 'frame.media.width >= 0', action: 'promote' },
    { name: 'blank', when: 'signals.blank &&', action: 'reject', reason: 'Low quality' },
  ],
};

interface Problem {
  status: number;
  code: string;
  errors?: { pointer: string; detail: string; rule?: number; name?: string; column?: number; message?: string }[];
}

describe('review API: a channel policy for admins', () => {
  let h: ReviewHarness;
  let ada: ReviewerClient;
  let rita: ReviewerClient;

  beforeAll(async () => {
    h = await startReviewHarness();
    await h.seedReviewer('ada@example.com', PASSWORD);
    await h.seedReviewer('rita@example.com', PASSWORD, { role: 'reviewer', channels: [CHANNEL] });
    ada = new ReviewerClient(h.url);
    rita = new ReviewerClient(h.url);
    expect((await ada.login('ada@example.com', PASSWORD)).status).toBe(201);
    expect((await rita.login('rita@example.com', PASSWORD)).status).toBe(201);
  });
  afterAll(async () => h?.close());

  it('a reviewer who is not an admin gets 403 forbidden on every policy route, and nothing changes', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', BASE],
      ['POST', `${BASE}/check`, { policy: GOOD }],
      ['PUT', BASE, { policy: GOOD }],
      ['DELETE', BASE],
      ['POST', `${BASE}/simulate`, { policy: GOOD, since: '30d' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await rita.call(method, path, body);
      expect([method, path, res.status, ((await res.json()) as Problem).code]).toEqual([
        method,
        path,
        403,
        'forbidden',
      ]);
    }
    expect((await (await ada.call('GET', BASE)).json()) as unknown).toEqual({ policy: null });
  });

  it('check answers 422 policy_invalid naming the rule and the column of a CEL error, and ok for a good policy', async () => {
    const bad = await ada.call('POST', `${BASE}/check`, { policy: BROKEN });
    expect(bad.status).toBe(422);
    const problem = (await bad.json()) as Problem;
    expect(problem.code).toBe('policy_invalid');
    expect(problem.errors).toHaveLength(1);
    expect(problem.errors?.[0]).toMatchObject({ pointer: '/rules/1/when', rule: 2, name: 'blank' });
    expect(problem.errors?.[0]?.column).toBeGreaterThan(1);
    expect(problem.errors?.[0]?.detail).toContain('rule 2 "blank"');
    const good = await ada.call('POST', `${BASE}/check`, { policy: GOOD });
    expect([good.status, await good.json()]).toEqual([200, { ok: true, rules: 2 }]);
    const missing = await ada.call('POST', `${BASE}/check`, {});
    expect(((await missing.json()) as Problem).code).toBe('validation_failed');
    const unknown = await ada.call('POST', '/review/channels/no-such-channel/policy/check', { policy: GOOD });
    expect(unknown.status).toBe(404);
  });

  it('save refuses an invalid policy (nothing stored), stores a good one recorded with the admin as who, and clear is recorded', async () => {
    const refused = await ada.call('PUT', BASE, { policy: BROKEN });
    expect([refused.status, ((await refused.json()) as Problem).code]).toEqual([422, 'policy_invalid']);
    expect((await (await ada.call('GET', BASE)).json()) as unknown).toEqual({ policy: null });

    const saved = await ada.call('PUT', BASE, { policy: GOOD });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ policy: GOOD, version: expect.any(Number) });
    const shown = await (await ada.call('GET', BASE)).json();
    expect(shown).toMatchObject({ policy: GOOD, updated_by: 'workbench:ada@example.com' });

    const cleared = await ada.call('DELETE', BASE);
    expect(await cleared.json()).toEqual({ cleared: true });
    expect((await (await ada.call('GET', BASE)).json()) as unknown).toEqual({ policy: null });
    const channel = await h.db.repos.channels.findBySlug(CHANNEL);
    const changes = await h.db.repos.policies.changes(channel!.id);
    expect(changes.map((c) => [c.actor, c.oldPolicy !== null, c.newPolicy !== null])).toEqual([
      ['workbench:ada@example.com', false, true],
      ['workbench:ada@example.com', true, false],
    ]);
  });

  it('simulate replays the rules over frames people decided and answers the CLI report; since is bounded', async () => {
    const promoted = await h.seedSubmission({ channel: CHANNEL, title: 'Kept' });
    const rejected = await h.seedSubmission({ channel: CHANNEL, title: 'Dropped' });
    expect((await ada.call('POST', `/review/submissions/${promoted}/decision`, { decision: 'promote' })).status).toBe(
      200,
    );
    const reject = { decision: 'reject', reason: 'Low quality' };
    expect((await ada.call('POST', `/review/submissions/${rejected}/decision`, reject)).status).toBe(200);

    const res = await ada.call('POST', `${BASE}/simulate`, { policy: GOOD, since: '7d' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      since: expect.any(String),
      frames: 2,
      rules: [
        { rule: 'wide', action: 'promote', matched: 2, people_promoted: 1, people_rejected: 1, agreed: 1 },
        { rule: 'urgent', action: 'review', matched: 0, people_promoted: 0, people_rejected: 0, agreed: null },
      ],
      unmatched: { count: 0, people_promoted: 0, people_rejected: 0 },
    });
    const invalid = await ada.call('POST', `${BASE}/simulate`, { policy: BROKEN, since: '7d' });
    expect(((await invalid.json()) as Problem).code).toBe('policy_invalid');
    for (const since of ['366d', '1y', 7])
      expect(
        ((await (await ada.call('POST', `${BASE}/simulate`, { policy: GOOD, since })).json()) as Problem).code,
      ).toBe('validation_failed');
  });

  it('a body larger than a whole policy is 413; one of 20 long rules is taken (above the review API’s 16 kB)', async () => {
    const long = (i: number) => ({
      name: `rule-${i}`,
      when: `frame.metadata.title == "${'x'.repeat(1500)}"`,
      action: 'promote',
    });
    const big = { rules: Array.from({ length: 20 }, (_, i) => long(i)) };
    const ok = await ada.call('POST', `${BASE}/check`, { policy: big });
    expect(ok.status).toBe(200);
    const huge = await ada.call('POST', `${BASE}/check`, { policy: big, padding: 'y'.repeat(200_000) });
    expect([huge.status, ((await huge.json()) as Problem).code]).toEqual([413, 'payload_too_large']);
    const elsewhere = await ada.call('POST', '/review/decisions', { ids: [], padding: 'y'.repeat(20_000) });
    expect(elsewhere.status).toBe(413);
  });

  it('check refuses a regular expression RE2 does not accept, naming the rule; GET says a stored policy no longer compiles', async () => {
    const lookbehind = {
      rules: [{ name: 'behind', when: 'frame.metadata.title.matches("(?<=a)b")', action: 'review' }],
    };
    const refused = await ada.call('POST', `${BASE}/check`, { policy: lookbehind });
    expect(refused.status).toBe(422);
    const problem = (await refused.json()) as Problem;
    expect(problem.errors?.[0]).toMatchObject({ pointer: '/rules/0/when', rule: 1, name: 'behind', column: 30 });
    expect(problem.errors?.[0]?.detail).toMatch(/not accepted by RE2/);

    // As after a library upgrade: the stored file no longer compiles (written past the validation).
    const channel = await h.db.repos.channels.findBySlug(CHANNEL);
    await h.db.transaction((repos) => repos.policies.set(channel!.id, lookbehind, 'test'));
    const shown = await (await ada.call('GET', BASE)).json();
    expect(shown).toMatchObject({
      policy: lookbehind,
      compiles: false,
      problems: [expect.stringMatching(/^rule 1 "behind": .*not accepted by RE2/)],
    });
    await ada.call('DELETE', BASE);
  });
});
