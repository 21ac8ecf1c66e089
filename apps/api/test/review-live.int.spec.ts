// Batch decisions and the live event stream of the review API, on a real PostgreSQL and Redis.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewChangesKeys } from '@framedesk/queues';
import { testRedisUrl, waitUntil } from '@framedesk/testing';
import { openEvents, type ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';

describe('review API: batch decisions and live events', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let bob: ReviewerClient;

  beforeAll(async () => {
    h = await startReviewHarness();
    alice = await h.signIn('alice@example.com', PASSWORD);
    bob = await h.signIn('bob@example.com', PASSWORD);
  });
  afterAll(async () => h?.close());

  it('decides each frame of a batch on its own and answers per frame', async () => {
    const free = await h.seedSubmission({ title: 'free' });
    const claimed = await h.seedSubmission({ title: 'claimed' });
    const draft = await h.seedSubmission({ title: 'draft', visibility: 'draft' });
    const decided = await h.seedSubmission({ title: 'decided' });
    expect((await bob.call('POST', `/review/submissions/${claimed}/claim`)).status).toBe(200);
    expect((await bob.call('POST', `/review/submissions/${decided}/decision`, { decision: 'promote' })).status).toBe(
      200,
    );
    const missing = 'sub_0000000000000000000000';

    const res = await alice.call('POST', '/review/decisions', {
      ids: [free, claimed, draft, decided, missing],
      decision: 'promote',
    });
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as { results: { id: string; outcome: string; code?: string }[] };
    expect(results.map((r) => [r.id, r.outcome, r.code])).toEqual([
      [free, 'promoted', undefined],
      [claimed, 'failed', 'claimed_by_other'],
      [draft, 'failed', 'not_promotion_eligible'],
      [decided, 'failed', 'invalid_transition'],
      [missing, 'failed', 'not_found'],
    ]);
    expect((await h.db.repos.submissions.findById(free))?.status).toBe('promoted');
    expect((await h.db.repos.submissions.findById(claimed))?.status).toBe('needs_review');
  });

  it('takes one reason for a batch rejection, needs the CSRF token, and refuses a malformed batch', async () => {
    const [a, b] = [await h.seedSubmission(), await h.seedSubmission()];
    const body = { ids: [a, b], decision: 'reject', reason: 'Duplicate', note: 'same as yesterday' };
    const noCsrf = await alice.call('POST', '/review/decisions', body, { 'x-csrf-token': 'wrong' });
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.json()).toMatchObject({ code: 'csrf_failed' });
    const res = await alice.call('POST', '/review/decisions', body);
    expect(((await res.json()) as { results: { outcome: string }[] }).results.map((r) => r.outcome)).toEqual([
      'rejected',
      'rejected',
    ]);
    // The reason stays one of the list; the note goes to the agent on its own (issue 37).
    expect(await h.db.repos.submissions.findById(b)).toMatchObject({
      reviewReason: 'Duplicate',
      reviewNote: 'same as yesterday',
    });
    for (const bad of [{ ids: [], decision: 'promote' }, { ids: ['x'], decision: 'promote' }, { ids: [a] }]) {
      const refused = await alice.call('POST', '/review/decisions', bad);
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ code: 'validation_failed' });
    }
  });

  it('streams status and claim changes as Server-Sent Events and replays from Last-Event-ID', async () => {
    expect((await fetch(`${h.url}/review/events`)).status).toBe(401);
    const stream = await openEvents(alice);
    // Announced through Redis to the open stream: the seed's transitions, then a claim.
    const id = await h.seedSubmission({ title: 'live' });
    const live = await stream.read((events) =>
      events.some((e) => e.data.id === id && e.data.status === 'needs_review'),
    );
    stream.close();
    const first = live.find((e) => e.data.id === id)!;
    expect(first.data).toEqual({ kind: 'status', id, status: 'media_processing' });
    expect((await bob.call('POST', `/review/submissions/${id}/claim`)).status).toBe(200);

    const replay = await openEvents(alice, first.id);
    const replayed = await replay.read((events) => events.some((e) => e.data.kind === 'claim'));
    replay.close();
    expect(replayed.map((e) => e.data)).toEqual([
      { kind: 'status', id, status: 'needs_review' },
      { kind: 'claim', id },
    ]);
  });

  it('pages a timeline by frame date and filters failed frames by code and channel', async () => {
    const later = await h.seedSubmission({ channel: 'paged', date: '20260302' });
    const earlier = await h.seedSubmission({ channel: 'paged', date: '20260301' });
    await alice.call('POST', '/review/decisions', { ids: [later, earlier], decision: 'promote' });
    type Page = { items: { id: string }[]; next_cursor: string | null };
    const first = (await (await alice.call('GET', '/review/channels/paged/timeline?limit=1')).json()) as Page;
    expect(first.items.map((i) => i.id)).toEqual([earlier]);
    const cursor = encodeURIComponent(first.next_cursor!);
    const second = (await (
      await alice.call('GET', `/review/channels/paged/timeline?limit=1&cursor=${cursor}`)
    ).json()) as Page;
    expect(second.items.map((i) => i.id)).toEqual([later]);
    expect((await alice.call('GET', '/review/channels/paged/timeline?limit=101')).status).toBe(422);

    const broken = await h.seedSubmission({ channel: 'broken' });
    const other = await h.seedSubmission({ channel: 'paged' });
    // A poison image's frame, failed after its processing crashed its worker three times.
    const crashed = await h.seedSubmission({ channel: 'broken' });
    for (const [id, code] of [
      [broken, 'invalid_image'],
      [other, 'processing_error'],
      [crashed, 'processing_crashed'],
    ] as const) {
      await h.db.transition({
        id,
        to: 'failed',
        actor: { type: 'system' },
        onlyFrom: ['needs_review', 'media_processing'],
        patch: { failureCode: code, failureMessage: 'x' },
      });
    }
    type Ops = { recently_failed: { id: string }[]; failure_codes: string[] };
    const ops = async (query: string) =>
      ((await (await alice.call('GET', `/review/ops?${query}`)).json()) as Ops).recently_failed.map((f) => f.id);
    expect(await ops('failure_code=invalid_image')).toEqual([broken]);
    expect(await ops('failure_code=processing_crashed')).toEqual([crashed]);
    expect(await ops('channel=paged')).toEqual([other]);
    expect(await ops('channel=paged&failure_code=invalid_image')).toEqual([]);
    expect((await alice.call('GET', '/review/ops?failure_code=nonsense')).status).toBe(422);
  });
});

describe('the live queue reading connection', () => {
  it('is closed with the API: a stopped API leaves no reader behind in its process', async () => {
    // Before, the reader outlived its API: with test files sharing a process, its blocking reads
    // landed in another file's counted round trips (round-trips.int.spec, CI of stop 50).
    const h = await startReviewHarness();
    const redis = new Redis(testRedisUrl());
    try {
      const reader = reviewChangesKeys(h.deps.settings.REDIS_PREFIX).reader;
      const readers = async () =>
        ((await redis.client('LIST')) as string).split('\n').filter((line) => line.includes(` name=${reader} `));
      const alice = await h.signIn('reader@example.com', PASSWORD);
      const stream = await openEvents(alice);
      await waitUntil('the reader connected', async () => (await readers()).length === 1);
      stream.close();
      await h.close();
      await waitUntil('the reader closed', async () => (await readers()).length === 0, 10_000);
    } finally {
      redis.disconnect();
    }
  });
});
