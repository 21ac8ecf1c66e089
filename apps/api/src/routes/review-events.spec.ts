// GET /review/events against stand-ins for its sources (no database, no Redis): the order in which
// a stream listens and reads, the session's expiry, and what a closed stream leaves behind.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

async function serve(handler: ReturnType<typeof reviewEventsHandler>, me: () => ReviewerPrincipal): Promise<string> {
  const app = express();
  app.get(
    '/events',
    (_req, res, next) => {
      res.locals['reviewer'] = me();
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
async function open(url: string) {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20_000).unref(); // a stream that never ends fails the test
  const res = await fetch(url, { signal: controller.signal });
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
      reviewEventsHandler(changes.subscriber, access, () => 'token'),
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
      reviewEventsHandler(changes.subscriber, access, () => 'token'),
      () => me,
    );
    const stream = await open(url);
    await stream.read(() => false);
    expect(stream.ended()).toBe(true);
    // And what it listened with is released.
    await expect.poll(() => [changes.listeners.size, listeners.size]).toEqual([0, 0]);
  });
});
