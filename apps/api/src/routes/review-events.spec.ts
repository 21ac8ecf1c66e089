// GET /review/events against stand-ins for its sources (no database, no Redis): the order in which
// a stream listens and reads, the session's expiry, and what a closed stream leaves behind.
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import express from 'express';
import type { ReviewerPrincipal } from '@framedesk/access';
import type { ReviewChange, ReviewChangeSubscriber } from '@framedesk/queues';
import { afterEach, describe, expect, it } from 'vitest';
import { reviewEventsHandler, type StreamAccess } from './review-events';

const principal = (over: Partial<ReviewerPrincipal> = {}): ReviewerPrincipal => ({
  kind: 'reviewer',
  reviewerId: 'rev_1',
  email: 'rita@example.com',
  name: null,
  role: 'reviewer',
  sessionId: 'session-1',
  csrfToken: 'csrf',
  expiresAt: new Date(Date.now() + 3600_000),
  ...over,
});

/** The Redis stream's stand-in: `publish` reaches every listening stream. */
function fakeSubscriber() {
  const listeners = new Set<(event: { id: string; change: ReviewChange }) => void>();
  let n = 0;
  const subscriber: ReviewChangeSubscriber = {
    async listen(_last, listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {},
  };
  return {
    subscriber,
    listeners,
    publish: (change: ReviewChange) => listeners.forEach((l) => l({ id: `${++n}-0`, change })),
  };
}

/** PostgreSQL's membership and LISTEN/NOTIFY stand-in. */
function fakeAccess(me: () => ReviewerPrincipal | null, channels: () => Set<string>) {
  const listeners = new Set<(reviewerId: string) => void>();
  const access: StreamAccess & { readHook?: () => void } = {
    reviewer: async () => me(),
    async memberChannels() {
      const seen = new Set(channels());
      access.readHook?.();
      return seen;
    },
    channelOf: async () => null,
    async onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { access, listeners, notify: (id: string) => listeners.forEach((l) => l(id)) };
}

const roomy = { perSession: 100, perReviewer: 100 };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

async function serve(
  handler: ReturnType<typeof reviewEventsHandler>,
  me: (req: express.Request) => ReviewerPrincipal,
): Promise<string> {
  const app = express();
  app.get(
    '/events',
    (req, res, next) => {
      res.locals['reviewer'] = me(req);
      next();
    },
    handler,
  );
  server = createServer(app);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
}

interface Event {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Reads Server-Sent Events until `enough`, or the end of the stream. */
async function open(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20_000).unref(); // a stream that never ends fails the test
  const res = await fetch(url, { signal: controller.signal, headers });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const seen: Event[] = [];
  let ended = false;
  return {
    async read(enough: (events: Event[]) => boolean) {
      while (!enough(seen) && !ended) {
        const { value, done } = await reader.read();
        if (done) ended = true;
        buffer += decoder.decode(value ?? new Uint8Array(), { stream: !done });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) seen.push({ event, data: JSON.parse(data) as Record<string, unknown> });
        }
      }
      return seen;
    },
    ended: () => ended,
    close: () => controller.abort(),
  };
}

describe('GET /review/events', () => {
  it('hears a membership removed while the stream opens: it listens for access changes before it reads them', async () => {
    let channels = new Set(['desk-a', 'desk-b']);
    const changes = fakeSubscriber();
    const { access, notify } = fakeAccess(
      () => principal(),
      () => channels,
    );
    // desk-a is removed (and announced) just after the stream read its channels.
    access.readHook = () => {
      access.readHook = undefined;
      channels = new Set(['desk-b']);
      notify('rev_1');
    };
    const url = await serve(
      reviewEventsHandler(changes.subscriber, access, () => 'token', { limits: roomy }),
      () => principal(),
    );
    const stream = await open(url);
    await stream.read(() => true);
    changes.publish({ kind: 'status', id: 'sub_a', status: 'needs_review', channel: 'desk-a' });
    changes.publish({ kind: 'status', id: 'sub_b', status: 'needs_review', channel: 'desk-b' });
    const events = await stream.read((seen) => seen.some((e) => e.data['id'] === 'sub_b'));
    stream.close();
    expect(events.filter((e) => e.event === 'change').map((e) => e.data['id'])).toEqual(['sub_b']);
    expect(events.filter((e) => e.event === 'access')).toHaveLength(1);
  });

  it("ends when the session expires, though nothing about the reviewer's access changed", async () => {
    const me = principal({ expiresAt: new Date(Date.now() + 1500) });
    const changes = fakeSubscriber();
    const { access, listeners } = fakeAccess(
      () => me,
      () => new Set(['desk-a']),
    );
    const url = await serve(
      reviewEventsHandler(changes.subscriber, access, () => 'token', { limits: roomy }),
      () => me,
    );
    const stream = await open(url);
    await stream.read(() => false);
    expect(stream.ended()).toBe(true);
    // And what it listened with is released.
    await expect.poll(() => [changes.listeners.size, listeners.size]).toEqual([0, 0]);
  });

  it('holds at most N streams per session and M per reviewer: the oldest is told and closed', async () => {
    const changes = fakeSubscriber();
    const { access } = fakeAccess(
      () => principal(),
      () => new Set(['desk-a']),
    );
    const handler = reviewEventsHandler(changes.subscriber, access, () => 'token', {
      limits: { perSession: 2, perReviewer: 3 },
    });
    // The session is named by the test's header; one reviewer throughout.
    const url = await serve(handler, (req) => principal({ sessionId: String(req.get('x-session')) }));
    const s1 = [];
    for (let i = 0; i < 3; i++) {
      s1.push(await open(url, { 'x-session': 'one' }));
      await s1[i]!.read(() => true);
    }
    // The first of session one was closed by the third, with the reason.
    expect((await s1[0]!.read(() => false)).map((e) => e.event)).toEqual(['closed']);
    expect(s1[0]!.ended()).toBe(true);
    expect(handler.openStreams()).toEqual({ streams: 2, sessions: 1, reviewers: 1 });
    const s2 = [await open(url, { 'x-session': 'two' }), await open(url, { 'x-session': 'two' })];
    await Promise.all(s2.map((s) => s.read(() => true)));
    // Four for the reviewer past three: the oldest of all (session one's second) goes.
    expect((await s1[1]!.read(() => false)).map((e) => e.data)).toEqual([{ reason: 'too_many_streams' }]);
    expect(handler.openStreams()).toEqual({ streams: 3, sessions: 2, reviewers: 1 });
    changes.publish({ kind: 'status', id: 'sub_1', channel: 'desk-a' });
    for (const s of [s1[2]!, ...s2]) expect((await s.read((e) => e.length > 0))[0]?.data['id']).toBe('sub_1');
    [...s1, ...s2].forEach((s) => s.close());
    await expect.poll(() => handler.openStreams()).toEqual({ streams: 0, sessions: 0, reviewers: 0 });
    expect(changes.listeners.size).toBe(0);
  });

  it('cuts off a client that stops reading once its buffer passes the bound, and forgets it', async () => {
    const changes = fakeSubscriber();
    const { access, listeners } = fakeAccess(
      () => principal(),
      () => new Set(['desk-a']),
    );
    const handler = reviewEventsHandler(changes.subscriber, access, () => 'token', {
      limits: { ...roomy, bufferBytes: 64 * 1024 },
    });
    const url = new URL(await serve(handler, () => principal()));
    const socket = connect(Number(url.port), url.hostname);
    let closedByServer = false;
    socket.on('close', () => (closedByServer = true));
    socket.on('error', () => undefined);
    socket.write(`GET /events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    socket.pause(); // and never reads
    await expect.poll(() => handler.openStreams().streams).toBe(1);
    // 40 MB of changes: far more than the kernel's socket buffers hold.
    const big = 'x'.repeat(10_000);
    for (let i = 0; i < 4000; i++) changes.publish({ kind: 'status', id: `sub_${i}_${big}`, channel: 'desk-a' });
    await expect.poll(() => handler.openStreams().streams, { timeout: 30_000 }).toBe(0);
    expect([changes.listeners.size, listeners.size]).toEqual([0, 0]);
    socket.resume();
    await expect.poll(() => closedByServer, { timeout: 30_000 }).toBe(true);
  });

  it('releases what it listened with when the client leaves while the stream opens', async () => {
    const changes = fakeSubscriber();
    const { access, listeners } = fakeAccess(
      () => principal(),
      () => new Set(['desk-a']),
    );
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const listening = new Promise<void>((r) => (started = r));
    const onChange = access.onChange.bind(access);
    access.onChange = async (listener) => {
      const stop = await onChange(listener);
      started();
      await gate; // LISTEN takes its time
      return stop;
    };
    const handler = reviewEventsHandler(changes.subscriber, access, () => 'token', { limits: roomy });
    const url = await serve(handler, () => principal());
    const controller = new AbortController();
    const request = fetch(url, { signal: controller.signal }).catch(() => null);
    await listening;
    controller.abort();
    await request;
    await new Promise((r) => setTimeout(r, 100)); // the server sees the hang-up
    release();
    await expect.poll(() => [listeners.size, changes.listeners.size]).toEqual([0, 0]);
    expect(handler.openStreams().streams).toBe(0);
  });
});
