// Teams: a reviewer who is a member of desk-a only, at every door of the review API, against an
// admin who sees everything; and membership changes reaching an open event stream at once.
import { accountsService } from '@framedesk/access';
import { makePng } from '@framedesk/testing';
import { fingerprintFrame } from '@framedesk/submissions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEvents, ReviewerClient, type ReviewHarness, type SseEvent, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';
const ALICE = 'alice@example.com'; // admin
const RITA = 'rita@example.com'; // reviewer, member of desk-a
const MISSING = 'sub_0000000000000000000000';

type Json = Record<string, unknown>;

describe('teams: roles and channel membership', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let rita: ReviewerClient;
  const png = makePng(64, 48, { seed: 7 });
  /** desk-a and desk-b frames: `a0`/`b0` earlier near-duplicates of `a1`/`b1` (the same picture). */
  const ids: Record<string, string> = {};

  const json = async (res: Response) => (await res.json()) as Json;
  const ids_ = (items: unknown) => (items as { id: string }[]).map((i) => i.id);
  /** A frame that waits for review, with an original and a thumbnail, fingerprinted. */
  const frame = async (name: string, channel: 'desk-a' | 'desk-b') => {
    ids[name] = await h.seedSubmission({ title: name, channel });
    await h.seedMedia(ids[name], 'original', 'original', png, 'image/png');
    await h.seedMedia(ids[name], 'variant', 'thumbnail', png, 'image/png');
    expect(await fingerprintFrame(h.db, ids[name], png)).toBe(true);
  };
  /** Answers like an unknown id: same status and code, nothing about the frame. */
  const expectNotFound = async (res: Response) => {
    expect(res.status).toBe(404);
    const body = await json(res);
    expect(body['code']).toBe('not_found');
    expect(JSON.stringify(body)).not.toContain('desk-b');
  };

  beforeAll(async () => {
    h = await startReviewHarness();
    await h.seedReviewer(ALICE, PASSWORD);
    await h.seedReviewer(RITA, PASSWORD, { role: 'reviewer', channels: ['desk-a'] });
    await h.seedChannel('desk-b');
    for (const [name, channel] of [
      ['a0', 'desk-a'],
      ['b0', 'desk-b'],
      ['a1', 'desk-a'],
      ['b1', 'desk-b'],
    ] as const)
      await frame(name, channel);
    alice = new ReviewerClient(h.url);
    rita = new ReviewerClient(h.url);
    expect((await alice.login(ALICE, PASSWORD)).status).toBe(201);
    expect((await rita.login(RITA, PASSWORD)).status).toBe(201);
  });
  afterAll(async () => h?.close());

  it('shows a reviewer only their channels in the queue (whatever the filter), the channel list and the timeline', async () => {
    const queue = async (c: ReviewerClient, query = '') =>
      ids_((await json(await c.call('GET', `/review/queue${query}`)))['items']);
    expect(await queue(rita)).toEqual([ids['a0'], ids['a1']]);
    expect(await queue(rita, '?channel=desk-b')).toEqual([]);
    expect(await queue(rita, '?agent=bot&media_type=image')).toEqual([ids['a0'], ids['a1']]);
    expect(await queue(alice)).toEqual([ids['a0'], ids['b0'], ids['a1'], ids['b1']]);

    const channels = async (c: ReviewerClient) =>
      (
        (await json(await c.call('GET', '/review/channels')))['channels'] as { slug: string; needs_review: number }[]
      ).map((ch) => [ch.slug, ch.needs_review]);
    expect(await channels(rita)).toEqual([['desk-a', 2]]);
    expect(await channels(alice)).toEqual([
      ['desk-a', 2],
      ['desk-b', 2],
    ]);

    // b0 promoted: on desk-b's timeline for the admin; desk-b's timeline does not exist for the reviewer.
    expect(
      (await alice.call('POST', `/review/submissions/${ids['b0']}/decision`, { decision: 'promote' })).status,
    ).toBe(200);
    expect(ids_((await json(await alice.call('GET', '/review/channels/desk-b/timeline')))['items'])).toEqual([
      ids['b0'],
    ]);
    const hidden = await rita.call('GET', '/review/channels/desk-b/timeline');
    const unknown = await rita.call('GET', '/review/channels/desk-z/timeline');
    expect([hidden.status, (await json(hidden))['detail']]).toEqual([404, 'No channel desk-b.']);
    expect([unknown.status, (await json(unknown))['detail']]).toEqual([404, 'No channel desk-z.']);
    expect((await json(await rita.call('GET', '/review/channels/desk-a/timeline')))['items']).toEqual([]);
  });

  it('answers not_found for a desk-b frame at detail, original, claim, release (undo), decision and visibility', async () => {
    const b1 = ids['b1']!;
    for (const [method, path, body] of [
      ['GET', `/review/submissions/${b1}`],
      ['GET', `/review/submissions/${b1}/original`],
      ['POST', `/review/submissions/${b1}/claim`],
      // Undo holds a decision in the browser and never sends it; putting the frame back is these two.
      ['DELETE', `/review/submissions/${b1}/claim`],
      ['POST', `/review/submissions/${b1}/decision`, { decision: 'promote' }],
      ['POST', `/review/submissions/${b1}/decision`, { decision: 'reject', reason: 'Low quality' }],
      ['PATCH', `/review/submissions/${b1}`, { visibility: 'draft' }],
    ] as const) {
      const answer = await rita.call(method, path, body);
      await expectNotFound(answer);
      const unknown = await rita.call(method, path.replace(b1, MISSING), body);
      expect(unknown.status, `${method} ${path}`).toBe(404);
    }
    expect(await h.db.repos.submissions.findById(b1)).toMatchObject({
      status: 'needs_review',
      claimedBy: null,
      visibility: 'promotion_eligible',
    });
    // Naming a desk-b frame as the original of a duplicate reads like naming no frame at all.
    const dup = (of: string) =>
      rita.call('POST', `/review/submissions/${ids['a1']}/decision`, {
        decision: 'reject',
        reason: 'Duplicate of an earlier frame',
        duplicate_of: of,
      });
    const [foreign, missing] = [await json(await dup(ids['b0']!)), await json(await dup(MISSING))];
    expect(foreign).toMatchObject({ code: 'validation_failed' });
    expect(foreign['detail']).toBe(missing['detail']);

    // The admin opens it all.
    const detail = await json(await alice.call('GET', `/review/submissions/${b1}`));
    expect(detail['channel_slug']).toBe('desk-b');
    expect((await alice.call('GET', `/review/submissions/${b1}/original`)).status).toBe(200);
    expect((await fetch(h.url + String(detail['thumbnail_url']))).status).toBe(200);
  });

  it("lists only the reviewer's channels among similar frames; the admin's desk-b twin stays on desk-b", async () => {
    const similar = async (c: ReviewerClient, id: string) =>
      ids_((await json(await c.call('GET', `/review/submissions/${id}`)))['similar']);
    expect(await similar(rita, ids['a1']!)).toEqual([ids['a0']]);
    expect(await similar(alice, ids['a1']!)).toEqual([ids['a0']]);
    expect(await similar(alice, ids['b1']!)).toEqual([ids['b0']]);
  });

  it('decides desk-a frames of a batch and answers not_found for the desk-b ones, in order', async () => {
    const [a, b] = [await h.seedSubmission({ channel: 'desk-a' }), await h.seedSubmission({ channel: 'desk-b' })];
    const res = await rita.call('POST', '/review/decisions', { ids: [b, a, MISSING], decision: 'promote' });
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as {
      results: { id: string; outcome: string; code?: string; detail?: string }[];
    };
    expect(results.map((r) => [r.id, r.outcome, r.code])).toEqual([
      [b, 'failed', 'not_found'],
      [a, 'promoted', undefined],
      [MISSING, 'failed', 'not_found'],
    ]);
    expect(results[0]!.detail).toBe(`No submission ${b}.`);
    expect((await h.db.repos.submissions.findById(b))?.status).toBe('needs_review');
  });

  it('keeps ops, workers, retries and people to admins: 403 forbidden for a reviewer', async () => {
    const failed = await h.seedSubmission({ channel: 'desk-a' });
    await h.db.transition({
      id: failed,
      to: 'failed',
      actor: { type: 'system' },
      patch: { failureCode: 'processing_error' },
    });
    for (const [method, path] of [
      ['GET', '/review/ops'],
      ['GET', '/review/ops/workers'],
      ['POST', `/review/submissions/${failed}/retry`],
      ['GET', '/review/people'],
      ['PATCH', `/review/people/${MISSING}`],
    ] as const) {
      const res = await rita.call(method, path, method === 'PATCH' ? { role: 'admin' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await json(res))['code']).toBe('forbidden');
    }
    expect((await alice.call('GET', '/review/ops')).status).toBe(200);
    expect((await alice.call('GET', '/review/ops/workers')).status).toBe(200);
    expect((await alice.call('POST', `/review/submissions/${failed}/retry`)).status).toBe(202);
  });

  it('streams only desk-a changes to the reviewer; membership changes reach the open stream at once, and so do links', async () => {
    const stream = await openEvents(rita);
    const admin = await openEvents(alice);
    const changesOf = (events: SseEvent[], id: string) =>
      events.filter((e) => e.event === 'change' && e.data.id === id);
    const settled = (id: string) => (events: SseEvent[]) =>
      changesOf(events, id).some((e) => e.data.status === 'needs_review');
    const accessEvents = (events: SseEvent[]) => events.filter((e) => e.event === 'access').length;
    /** A desk-b frame, then a desk-a one: once the desk-a one has arrived, the desk-b one would have too. */
    const both = async () => {
      const b = await h.seedSubmission({ channel: 'desk-b' });
      const a = await h.seedSubmission({ channel: 'desk-a' });
      return { a, b, events: await stream.read(settled(a)) };
    };

    const first = await both();
    expect(changesOf(first.events, first.b)).toEqual([]);
    expect(changesOf(first.events, first.a).map((e) => e.data.status)).toEqual(['media_processing', 'needs_review']);
    expect(changesOf(await admin.read(settled(first.a)), first.b)).toHaveLength(2);

    // The admin adds desk-b on the People screen: recorded with who did it, heard by the open stream.
    const rid = (await h.db.repos.reviewers.findByEmail(RITA))!.id;
    const added = await alice.call('PATCH', `/review/people/${rid}`, { channels: ['desk-a', 'desk-b'] });
    expect((await json(added))['person']).toMatchObject({ channels: ['desk-a', 'desk-b'], role: 'reviewer' });
    await stream.read((events) => accessEvents(events) === 1);
    const second = await both();
    expect(changesOf(second.events, second.b).map((e) => e.data.status)).toEqual(['media_processing', 'needs_review']);
    const b1Link = String((await json(await rita.call('GET', `/review/submissions/${ids['b1']}`)))['thumbnail_url']);
    expect(b1Link).toContain('viewer=');
    expect((await fetch(h.url + b1Link)).status).toBe(200);

    // The operator removes it again from the CLI (the same service): the next desk-b change is not sent.
    await accountsService(h.db, 'cli:test').setReviewerChannel(RITA, 'desk-b', false);
    await stream.read((events) => accessEvents(events) === 2);
    const third = await both();
    expect(changesOf(third.events, third.b)).toEqual([]);
    expect(changesOf(third.events, third.a)).toHaveLength(2);
    await expectNotFound(await fetch(h.url + b1Link));
    await expectNotFound(await rita.call('GET', `/review/submissions/${ids['b1']}`));

    const events = await h.db.repos.accounts.events('reviewer', rid);
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ['created', 'system'],
      ['channel_added', `workbench:${ALICE}`],
      ['channel_removed', 'cli:test'],
    ]);
    admin.close();

    // A role change applies at once too; disabling ends the stream.
    await accountsService(h.db, 'cli:test').setReviewerRole(RITA, 'admin');
    expect((await stream.read((e) => accessEvents(e) === 3)).at(-1)?.data).toEqual({ role: 'admin' });
    expect((await rita.call('GET', '/review/ops')).status).toBe(200);
    await accountsService(h.db, 'cli:test').setReviewerDisabled(RITA, true);
    await stream.read(() => false);
    expect(stream.ended()).toBe(true);
    expect((await rita.call('GET', '/review/queue')).status).toBe(401);
  });

  it('keeps an enabled admin: the last one cannot be demoted or disabled (409 last_admin)', async () => {
    await accountsService(h.db, 'cli:test').setReviewerDisabled(RITA, false);
    await accountsService(h.db, 'cli:test').setReviewerRole(RITA, 'reviewer');
    const aid = (await h.db.repos.reviewers.findByEmail(ALICE))!.id;
    for (const body of [{ role: 'reviewer' }, { disabled: true }]) {
      const res = await alice.call('PATCH', `/review/people/${aid}`, body);
      expect(res.status).toBe(409);
      expect((await json(res))['code']).toBe('last_admin');
    }
    expect((await alice.call('GET', '/review/ops')).status).toBe(200);
  });

  it('invites by email: the account exists at once, and a one-time link chooses a password and signs in', async () => {
    const res = await alice.call('POST', '/review/people', { email: 'Vera@Example.com', channels: ['desk-a'] });
    expect(res.status).toBe(201);
    const { person, invite } = (await res.json()) as { person: Json; invite: { url: string; expires_at: string } };
    expect(person).toMatchObject({
      email: 'vera@example.com',
      role: 'reviewer',
      channels: ['desk-a'],
      has_password: false,
    });
    expect(invite.url.startsWith(`${h.url}/welcome#invite=`)).toBe(true);
    const token = decodeURIComponent(invite.url.split('#invite=')[1]!);
    const again = await alice.call('POST', '/review/people', { email: 'vera@example.com' });
    expect([again.status, (await json(again))['code']]).toEqual([409, 'already_exists']);

    const vera = new ReviewerClient(h.url);
    expect((await vera.login('vera@example.com', PASSWORD)).status).toBe(401);
    expect(await json(await vera.call('POST', '/review/invite/preview', { token }))).toEqual({
      email: 'vera@example.com',
      accept_with: 'password',
    });
    expect((await vera.call('POST', '/review/invite/accept', { token, password: 'short' })).status).toBe(422);
    const accepted = await vera.call('POST', '/review/invite/accept', { token, password: PASSWORD });
    expect(accepted.status).toBe(201);
    vera.cookie = accepted.headers.get('set-cookie')!.split(';')[0]!;
    expect(((await json(await vera.call('GET', '/review/channels')))['channels'] as unknown[]).length).toBe(1);
    expect(
      (await vera.call('POST', '/review/invite/accept', { token, password: 'another long password' })).status,
    ).toBe(404);
    expect((await new ReviewerClient(h.url).login('vera@example.com', PASSWORD)).status).toBe(201);

    const events = await h.db.repos.accounts.events('reviewer', String(person['id']));
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ['created', `workbench:${ALICE}`],
      ['invited', `workbench:${ALICE}`],
      ['password_set', 'invite'],
    ]);
  });
});
