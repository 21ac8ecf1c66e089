// GET /review/stats: a reviewer's own decisions today and the backlog they may see (channel-scoped).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';
const ALICE = 'alice@example.com'; // admin
const RITA = 'rita@example.com'; // reviewer, member of desk-a

describe('GET /review/stats', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let rita: ReviewerClient;
  const ids: string[] = [];
  const stats = async (who: ReviewerClient, query = '') => {
    const res = await who.call('GET', `/review/stats${query}`);
    return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  beforeAll(async () => {
    h = await startReviewHarness();
    alice = await h.signIn(ALICE, PASSWORD);
    rita = await h.signIn(RITA, PASSWORD, { role: 'reviewer', channels: ['desk-a'] });
    await h.seedChannel('desk-b');
    for (const channel of ['desk-a', 'desk-a', 'desk-a', 'desk-b'])
      ids.push(await h.seedSubmission({ channel, visibility: 'promotion_eligible' }));
  });

  afterAll(async () => {
    await h?.close();
  });

  it("counts the reviewer's own decisions today and the backlog of every channel they see", async () => {
    expect((await stats(rita)).body).toEqual({
      decisions_today: 0,
      median_seconds_per_decision: null,
      backlog: { channel: null, waiting: 3, oldest_created_at: expect.any(String) },
    });
    for (const id of ids.slice(0, 2))
      expect((await rita.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' })).status).toBe(200);
    const mine = (await stats(rita)).body;
    expect(mine['decisions_today']).toBe(2);
    expect(mine['median_seconds_per_decision']).toBeGreaterThanOrEqual(0);
    expect(mine['backlog']).toMatchObject({ channel: null, waiting: 1 });
    // Alice (an admin) has decided nothing; she sees desk-b's frame too.
    expect((await stats(alice)).body).toMatchObject({ decisions_today: 0, backlog: { waiting: 2 } });
  });

  it('narrows the backlog to one channel, and never counts a channel outside the scope', async () => {
    expect((await stats(alice, '?channel=desk-b')).body['backlog']).toMatchObject({ channel: 'desk-b', waiting: 1 });
    expect((await stats(rita, '?channel=desk-b')).body['backlog']).toEqual({
      channel: 'desk-b',
      waiting: 0,
      oldest_created_at: null,
    });
    const bad = await stats(rita, '?channel=Not%20a%20slug');
    expect(bad.status).toBe(422);
    expect(bad.body['code']).toBeTruthy();
  });

  it('answers 401 without a session', async () => {
    expect((await fetch(`${h.url}/review/stats`)).status).toBe(401);
  });
});
