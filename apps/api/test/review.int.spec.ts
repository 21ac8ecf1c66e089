// The review API against a real PostgreSQL and Redis: sessions, CSRF, queue, claims, decisions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionToken } from '@framedesk/access';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';

describe('review API', () => {
  let h: ReviewHarness;
  let alice: ReviewerClient;
  let bob: ReviewerClient;

  beforeAll(async () => {
    h = await startReviewHarness({ LOGIN_ATTEMPTS_PER_15_MINUTES: '3' });
    alice = await h.signIn('alice@example.com', PASSWORD);
    await h.seedReviewer('bob@example.com', PASSWORD);
    bob = new ReviewerClient(h.url);
    // An email signs in whatever its case.
    expect((await bob.login('Bob@Example.com', PASSWORD)).status).toBe(201);
  });
  afterAll(async () => h?.close());

  const clearAddressCounters = async () => {
    const keys = await h.deps.redis.keys(`${h.deps.settings.REDIS_PREFIX}:login:ip:*`);
    if (keys.length > 0) await h.deps.redis.del(...keys);
  };

  describe('access', () => {
    it('sets an httpOnly, SameSite=Lax session cookie whose token is stored only as a hash', async () => {
      const c = new ReviewerClient(h.url);
      const res = await c.login('alice@example.com', PASSWORD);
      const set = res.headers.get('set-cookie')!;
      expect(set).toMatch(/^fd_session=[0-9A-Za-z]{40,}; /);
      expect(set).toContain('HttpOnly');
      expect(set).toContain('SameSite=Lax');
      expect(set).not.toContain('Secure');
      const token = c.cookie.split('=')[1]!;
      expect(await h.db.repos.reviewerSessions.findLive(token, new Date())).toBeNull();
      expect(await h.db.repos.reviewerSessions.findLive(hashSessionToken(token), new Date())).not.toBeNull();
    });

    it('marks the cookie Secure and __Host- behind a TLS-terminating proxy (TRUST_PROXY)', async () => {
      const behindProxy = await startReviewHarness({ TRUST_PROXY: '1' });
      try {
        await behindProxy.seedReviewer('dave@example.com', PASSWORD);
        const dave = new ReviewerClient(behindProxy.url);
        const res = await dave.login('dave@example.com', PASSWORD);
        expect(res.headers.get('set-cookie')).toMatch(
          /^__Host-fd_session=\w+; Path=\/; .*HttpOnly; SameSite=Lax; Secure$/,
        );
        expect((await dave.call('GET', '/review/session')).status).toBe(200);
        // A plain fd_session cookie (which a sibling subdomain could plant) is not read.
        const plain = dave.cookie.replace('__Host-', '');
        expect((await fetch(`${behindProxy.url}/review/session`, { headers: { cookie: plain } })).status).toBe(401);
      } finally {
        await behindProxy.close();
      }
    });

    it('refuses anonymous calls, agent keys and unknown cookies with 401 problem+json', async () => {
      for (const headers of [
        {},
        { authorization: 'Bearer fd_live_abcdefghijklmnopqrstuvwxyz0123456' },
        { cookie: 'fd_session=nope' },
        { cookie: 'fd_session=%E0%A4%A' },
      ] as Record<string, string>[]) {
        const res = await fetch(`${h.url}/review/queue`, { headers });
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(((await res.json()) as { code: string }).code).toBe('unauthenticated');
      }
    });

    it('the agent API refuses a reviewer session: it takes only Bearer keys', async () => {
      for (const path of ['/v1/frame-submissions', '/v1/frame-submissions/sub_0000000000000000000000']) {
        const res = await fetch(h.url + path, { headers: { cookie: alice.cookie, 'x-csrf-token': alice.csrf } });
        expect(res.status).toBe(401);
        expect(((await res.json()) as { code: string }).code).toBe('unauthenticated');
      }
    });

    it('refuses a wrong password and an unknown email alike', async () => {
      const c = new ReviewerClient(h.url);
      const wrong = await c.login('bob@example.com', 'not the password');
      const unknown = await c.login('nobody@example.com', 'not the password');
      expect([wrong.status, unknown.status]).toEqual([401, 401]);
      expect(((await wrong.json()) as { detail: string }).detail).toBe(
        ((await unknown.json()) as { detail: string }).detail,
      );
      expect(wrong.headers.get('set-cookie')).toBeNull();
    });

    it('throttles repeated failures for one email with 429 and Retry-After, even with the right password', async () => {
      await h.seedReviewer('carol@example.com', PASSWORD);
      const c = new ReviewerClient(h.url);
      await clearAddressCounters();
      for (let i = 0; i < 3; i++) expect((await c.login('carol@example.com', 'guess-guess')).status).toBe(401);
      const blocked = await c.login('carol@example.com', PASSWORD);
      expect(blocked.status).toBe(429);
      expect(((await blocked.json()) as { code: string }).code).toBe('rate_limited');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      // The address is throttled too: guessing across many emails from one place is refused.
      expect((await c.login('alice@example.com', PASSWORD)).status).toBe(429);
      await clearAddressCounters();
      expect((await c.login('alice@example.com', PASSWORD)).status).toBe(201);
      expect((await c.login('carol@example.com', PASSWORD)).status).toBe(429);
    });

    it('requires the CSRF token on writes', async () => {
      const id = await h.seedSubmission();
      const noToken = await alice.call('POST', `/review/submissions/${id}/claim`, {}, { 'x-csrf-token': '' });
      expect(noToken.status).toBe(403);
      expect(((await noToken.json()) as { code: string }).code).toBe('csrf_failed');
      const otherSessions = await alice.call(
        'POST',
        `/review/submissions/${id}/claim`,
        {},
        { 'x-csrf-token': bob.csrf },
      );
      expect(otherSessions.status).toBe(403);
      expect((await alice.call('POST', `/review/submissions/${id}/claim`, {})).status).toBe(200);
    });

    it('tells who is signed in, rotates the session at login and ends it at logout', async () => {
      const c = new ReviewerClient(h.url);
      await c.login('alice@example.com', PASSWORD);
      const first = c.cookie;
      const me = await c.call('GET', '/review/session');
      expect(((await me.json()) as { reviewer: { email: string }; csrf_token: string }).reviewer.email).toBe(
        'alice@example.com',
      );
      await c.login('alice@example.com', PASSWORD);
      expect(c.cookie).not.toBe(first);
      expect((await fetch(`${h.url}/review/session`, { headers: { cookie: first } })).status).toBe(401);
      const out = await c.call('DELETE', '/review/session');
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
      expect((await c.call('GET', '/review/session')).status).toBe(401);
    });
  });

  describe('queue and detail', () => {
    it('lists needs_review oldest first with filters, counts per channel and keyset pages', async () => {
      const a = await h.seedSubmission({ channel: 'sports', agent: 'ag-one', title: 'First', date: '20260301' });
      const b = await h.seedSubmission({
        channel: 'sports',
        agent: 'ag-two',
        title: 'Second',
        date: '20260302',
        mediaType: 'video',
      });
      const c = await h.seedSubmission({ channel: 'sports', agent: 'ag-one', title: 'Third', date: '20260303' });
      const all = (await (await alice.call('GET', '/review/queue?channel=sports')).json()) as {
        items: { id: string; title: string; channel_slug: string }[];
      };
      expect(all.items.map((i) => i.id)).toEqual([a, b, c]);
      expect(all.items[0]).toMatchObject({
        title: 'First',
        channel_slug: 'sports',
        agent_slug: 'ag-one',
        media_type: 'image',
      });
      const byAgent = (await (await alice.call('GET', '/review/queue?channel=sports&agent=ag-one')).json()) as {
        items: { id: string }[];
      };
      expect(byAgent.items.map((i) => i.id)).toEqual([a, c]);
      const videos = (await (await alice.call('GET', '/review/queue?channel=sports&media_type=video')).json()) as {
        items: { id: string }[];
      };
      expect(videos.items.map((i) => i.id)).toEqual([b]);
      const dated = (await (
        await alice.call('GET', '/review/queue?channel=sports&date_from=20260302&date_to=20260303')
      ).json()) as { items: { id: string }[] };
      expect(dated.items.map((i) => i.id)).toEqual([b, c]);
      const page1 = (await (await alice.call('GET', '/review/queue?channel=sports&limit=2')).json()) as {
        items: { id: string }[];
        next_cursor: string;
      };
      expect(page1.items.map((i) => i.id)).toEqual([a, b]);
      const page2 = (await (
        await alice.call('GET', `/review/queue?channel=sports&limit=2&cursor=${page1.next_cursor}`)
      ).json()) as { items: { id: string }[]; next_cursor: string | null };
      expect(page2.items.map((i) => i.id)).toEqual([c]);
      expect(page2.next_cursor).toBeNull();
      const bad = await alice.call('GET', '/review/queue?media_type=gif&date_from=2026');
      expect(bad.status).toBe(422);
      const counts = (await (await alice.call('GET', '/review/channels')).json()) as {
        channels: { slug: string; needs_review: number }[];
      };
      expect(counts.channels.find((ch) => ch.slug === 'sports')?.needs_review).toBe(3);
    });

    it('shows the detail with click zones and the event history', async () => {
      const id = await h.seedSubmission({ title: 'Detailed' });
      const res = await alice.call('GET', `/review/submissions/${id}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        id,
        title: 'Detailed',
        caption: 'cap',
        status: 'needs_review',
        visibility: 'promotion_eligible',
      });
      expect(body['click_zones']).toEqual([
        { x: 0.1, y: 0.1, width: 0.2, height: 0.2, url: 'https://example.com/a', label: 'Buy' },
      ]);
      expect((body['events'] as { to: string }[]).map((e) => e.to)).toEqual([
        'received',
        'media_processing',
        'needs_review',
      ]);
      expect((await alice.call('GET', '/review/submissions/sub_0000000000000000000000')).status).toBe(404);
    });
  });

  describe('video originals', () => {
    it('streams a video original to a signed-in reviewer only, with byte ranges for seeking', async () => {
      const id = await h.seedSubmission({ mediaType: 'video', title: 'Clip' });
      const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
      await h.seedMedia(id, 'original', 'original', bytes, 'video/mp4');
      const detail = (await (await alice.call('GET', `/review/submissions/${id}`)).json()) as { video_url: string };
      expect(detail.video_url).toBe(`/review/submissions/${id}/original`);
      const whole = await alice.call('GET', detail.video_url);
      expect(whole.headers.get('content-type')).toBe('video/mp4');
      expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
      const part = await alice.call('GET', detail.video_url, undefined, { range: 'bytes=100-199' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe('bytes 100-199/1000');
      expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(100, 200));
      expect((await fetch(h.url + detail.video_url)).status).toBe(401);
    });

    it('serves nothing of an erased frame, not even media rows a late worker committed after the erasure', async () => {
      const id = await h.seedSubmission({ mediaType: 'video', title: 'Late' });
      const seed = async () => {
        await h.seedMedia(id, 'original', 'original', Buffer.from('video bytes'), 'video/mp4');
        await h.seedMedia(id, 'variant', 'preview', Buffer.from('preview bytes'), 'image/webp');
      };
      await seed();
      const before = (await (await alice.call('GET', `/review/submissions/${id}`)).json()) as { image_url: string };
      expect((await fetch(new URL(before.image_url, h.url))).status).toBe(200);
      await h.erase(id);
      // What a worker that read the frame before the erasure would have committed after it.
      await seed();
      const after = (await (await alice.call('GET', `/review/submissions/${id}`)).json()) as Record<string, unknown>;
      expect(after).toMatchObject({ image_url: null, video_url: null, variants: {}, purged_at: expect.any(String) });
      expect((await fetch(new URL(before.image_url, h.url))).status).toBe(404);
      expect((await alice.call('GET', `/review/submissions/${id}/original`)).status).toBe(404);
    });
  });

  describe('claims and decisions', () => {
    it('lets one reviewer claim a frame; another gets 409 claimed_by_other until it expires', async () => {
      const id = await h.seedSubmission();
      expect((await alice.call('POST', `/review/submissions/${id}/claim`)).status).toBe(200);
      expect((await alice.call('POST', `/review/submissions/${id}/claim`)).status).toBe(200);
      const other = await bob.call('POST', `/review/submissions/${id}/claim`);
      expect(other.status).toBe(409);
      expect((await other.json()) as { code: string; detail: string }).toMatchObject({
        code: 'claimed_by_other',
        detail: expect.stringContaining('alice@example.com'),
      });
      const decided = await bob.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
      expect(decided.status).toBe(409);
      // An expired claim frees the frame.
      await h.db.repos.submissions.update(
        id,
        { claimedUntil: new Date(Date.now() - 1000) },
        { type: 'test', actor: { type: 'system' } },
      );
      expect((await bob.call('POST', `/review/submissions/${id}/claim`)).status).toBe(200);
    });

    it('promotes through the status machine and shows it on the channel timeline', async () => {
      const id = await h.seedSubmission({ channel: 'timeline-ch', title: 'Promote me', date: '20260105' });
      const earlier = await h.seedSubmission({ channel: 'timeline-ch', title: 'Earlier day', date: '20260101' });
      const res = await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
      expect(res.status).toBe(200);
      expect(
        (await res.json()) as { status: string; review: { decision: string; reviewer_email: string } },
      ).toMatchObject({
        status: 'promoted',
        review: { decision: 'promoted', reviewer_email: 'alice@example.com' },
      });
      await alice.call('POST', `/review/submissions/${earlier}/decision`, { decision: 'promote' });
      const timeline = (await (await alice.call('GET', '/review/channels/timeline-ch/timeline')).json()) as {
        items: { id: string }[];
      };
      expect(timeline.items.map((i) => i.id)).toEqual([earlier, id]);
      const again = await bob.call('POST', `/review/submissions/${id}/decision`, {
        decision: 'reject',
        reason: 'Duplicate',
      });
      expect(again.status).toBe(409);
      expect((await again.json()) as { code: string; detail: string }).toMatchObject({
        code: 'invalid_transition',
        detail: expect.stringContaining('decided this frame first'),
      });
      expect((await alice.call('GET', '/review/channels/nope/timeline')).status).toBe(404);
    });

    it('lets exactly one of two racing reviewers decide', async () => {
      const id = await h.seedSubmission();
      const results = await Promise.all([
        alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' }),
        bob.call('POST', `/review/submissions/${id}/decision`, { decision: 'reject', reason: 'Low quality' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const events = await h.db.repos.submissions.events(id);
      expect(events.filter((e) => e.toStatus === 'promoted' || e.toStatus === 'rejected')).toHaveLength(1);
    });

    it('requires a reason to reject and stores it, and the free text as the note to the agent', async () => {
      const id = await h.seedSubmission();
      expect((await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'reject' })).status).toBe(422);
      expect(
        (await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'reject', reason: 'Other' }))
          .status,
      ).toBe(422);
      const ok = await alice.call('POST', `/review/submissions/${id}/decision`, {
        decision: 'reject',
        reason: 'Low quality',
        note: 'blurry',
      });
      expect(ok.status).toBe(200);
      const row = await h.db.repos.submissions.findById(id);
      expect(row).toMatchObject({
        status: 'rejected',
        reviewDecision: 'rejected',
        reviewReason: 'Low quality',
        reviewNote: 'blurry',
        claimedBy: null,
      });
    });

    it('changes visibility with an event and refuses to promote what is not promotion_eligible', async () => {
      const id = await h.seedSubmission({ visibility: 'draft' });
      const refused = await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { code: string }).code).toBe('not_promotion_eligible');
      const changed = await alice.call('PATCH', `/review/submissions/${id}`, { visibility: 'promotion_eligible' });
      expect(changed.status).toBe(200);
      const body = (await changed.json()) as { visibility: string; events: { type: string }[] };
      expect(body.visibility).toBe('promotion_eligible');
      expect(body.events.map((e) => e.type)).toContain('visibility_changed');
      expect((await alice.call('PATCH', `/review/submissions/${id}`, { visibility: 'public' })).status).toBe(422);
      expect((await alice.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' })).status).toBe(
        200,
      );
    });
  });

  describe('ops', () => {
    /** A frame the worker failed: its image would not decode. */
    const failedFrame = async (title: string) => {
      const id = await h.seedSubmission({ title });
      await h.db.transition({
        id,
        to: 'failed',
        actor: { type: 'system' },
        patch: { failureCode: 'invalid_image', failureMessage: 'bad pixels' },
      });
      return id;
    };

    it('lists failed submissions and retries one through the status machine onto the queue', async () => {
      const id = await failedFrame('Broken');
      const ops = (await (await alice.call('GET', '/review/ops')).json()) as {
        queues: Record<string, { waiting: number }>;
        recently_failed: { id: string; failure_code: string; failure_message: string }[];
      };
      expect(ops.recently_failed.find((f) => f.id === id)).toMatchObject({
        failure_code: 'invalid_image',
        failure_message: 'bad pixels',
      });
      const before = ops.queues['image-processing']!.waiting;
      const retry = await alice.call('POST', `/review/submissions/${id}/retry`);
      expect(retry.status).toBe(202);
      expect(await h.db.repos.submissions.findById(id)).toMatchObject({ status: 'received', failureCode: null });
      const after = (await (await alice.call('GET', '/review/ops')).json()) as {
        queues: Record<string, { waiting: number }>;
      };
      expect(after.queues['image-processing']!.waiting).toBe(before + 1);
      expect((await alice.call('POST', `/review/submissions/${id}/retry`)).status).toBe(409);
    });

    it('refuses to retry a failed frame whose media were purged, with the code media_purged', async () => {
      const id = await failedFrame('Purged');
      await h.erase(id);
      const refused = await alice.call('POST', `/review/submissions/${id}/retry`);
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ code: 'media_purged' });
      expect(await h.db.repos.submissions.findById(id)).toMatchObject({ status: 'failed' });
    });
  });
  describe('expiry (last: it ends every session)', () => {
    it('deletes expired sessions', async () => {
      const c = new ReviewerClient(h.url);
      await c.login('alice@example.com', PASSWORD);
      const deleted = await h.db.repos.reviewerSessions.deleteExpired(new Date(Date.now() + 13 * 3600_000));
      expect(deleted).toBeGreaterThan(0);
      expect((await c.call('GET', '/review/session')).status).toBe(401);
    });
  });
});
