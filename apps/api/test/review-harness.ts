// An in-process API on a database and Redis prefix of its own, seeded for review tests.
import { createReviewer } from '@framedesk/access';
import type { Database } from '@framedesk/db';
import { newId, type ReviewerRole, type Visibility } from '@framedesk/domain';
import { expect } from 'vitest';
import type { ApiDependencies } from '../src/dependencies';
import { startTestServer } from './test-dependencies';

export interface ReviewHarness {
  readonly url: string;
  readonly deps: ApiDependencies;
  readonly db: Database;
  /** An admin unless told otherwise (role `reviewer` with `channels`). */
  seedReviewer(email: string, password: string, access?: { role?: ReviewerRole; channels?: string[] }): Promise<void>;
  /** Creates the channel when missing. */
  seedChannel(slug: string): Promise<void>;
  /** Stores `bytes` as a media object of the submission (an original, or a variant such as `thumbnail`). */
  seedMedia(id: string, kind: 'original' | 'variant', name: string, bytes: Buffer, contentType: string): Promise<void>;
  seedSubmission(input?: {
    channel?: string;
    agent?: string;
    title?: string;
    visibility?: Visibility;
    mediaType?: 'image' | 'video';
    date?: string;
  }): Promise<string>;
  close(): Promise<void>;
}

export async function startReviewHarness(env: Record<string, string> = {}): Promise<ReviewHarness> {
  const server = await startTestServer({ env });
  const { url, deps } = server;
  const db = deps.db;
  return {
    url,
    deps,
    db,
    async seedReviewer(email, password, access = {}) {
      for (const slug of access.channels ?? []) await db.repos.channels.ensure(slug);
      await createReviewer(db, { email, password, role: access.role ?? 'admin', channels: access.channels ?? [] });
    },
    async seedChannel(slug) {
      await db.repos.channels.ensure(slug);
    },
    async seedMedia(id, kind, name, bytes, contentType) {
      const bucket = deps.config.storage.vendor_originals_bucket;
      const key = `${kind}s/${id}/${name}`;
      const stored = await deps.storage.put(bucket, key, bytes, { contentType });
      await db.repos.mediaObjects.upsert({
        submissionId: id,
        kind,
        name,
        bucket,
        key,
        contentType,
        byteSize: stored.byteSize,
      });
    },
    async seedSubmission(input = {}) {
      const id = newId('submission');
      await db.transaction(async (repos) => {
        const { channel } = await repos.channels.ensure(input.channel ?? 'news');
        const agent =
          (await repos.agents.findBySlug(input.agent ?? 'bot')) ?? (await repos.agents.create(input.agent ?? 'bot'));
        await repos.submissions.create(
          {
            id,
            status: 'received',
            mediaType: input.mediaType ?? 'image',
            agentId: agent.id,
            channelId: channel.id,
            date: input.date ?? '20260101',
            metadata: {
              title: input.title ?? 'A frame',
              caption: 'cap',
              click_zones: [{ x: 0.1, y: 0.1, width: 0.2, height: 0.2, url: 'https://example.com/a', label: 'Buy' }],
            },
            title: input.title ?? 'A frame',
            visibility: input.visibility ?? 'promotion_eligible',
          },
          { type: 'agent', id: agent.id },
        );
      });
      for (const to of ['media_processing', 'needs_review'] as const) {
        const r = await db.transition({ id, to, actor: { type: 'system' } });
        if (!r.ok) throw new Error(`seed transition to ${to} failed`);
      }
      return id;
    },
    close: () => server.close(),
  };
}

/** A cookie jar of one session, and calls that carry its CSRF token. */
export class ReviewerClient {
  cookie = '';
  csrf = '';
  constructor(readonly base: string) {}

  async login(email: string, password: string): Promise<Response> {
    const res = await this.call('POST', '/review/session', { email, password });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    if (res.status === 201) this.csrf = ((await res.clone().json()) as { csrf_token: string }).csrf_token;
    return res;
  }

  /**
   * Single sign-on through `authorize` (the test provider's browser walk): starts at
   * /review/oidc/login, returns the callback's answer; on success the client holds the session.
   */
  async ssoSignIn(
    authorize: (authorizationUrl: string) => Promise<string>,
    options: { returnTo?: string; replay?: { callbackUrl: string; pending: string } } = {},
  ): Promise<{ res: Response; callbackUrl: string; pending: string }> {
    let { callbackUrl = '', pending = '' } = options.replay ?? {};
    if (!options.replay) {
      const query = options.returnTo ? `?return_to=${encodeURIComponent(options.returnTo)}` : '';
      const start = await fetch(`${this.base}/review/oidc/login${query}`, { redirect: 'manual' });
      pending = start.headers
        .getSetCookie()
        .find((c) => c.startsWith('fd_oidc='))!
        .split(';')[0]!;
      callbackUrl = await authorize(start.headers.get('location')!);
    }
    const res = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: pending } });
    const session = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('fd_session=') && !c.startsWith('fd_session=;'));
    if (session) {
      this.cookie = session.split(';')[0]!;
      this.csrf = ((await (await this.call('GET', '/review/session')).json()) as { csrf_token: string }).csrf_token;
    }
    return { res, callbackUrl, pending };
  }

  call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.base + path, {
      method,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(this.csrf ? { 'x-csrf-token': this.csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  }
}

export interface SseEvent {
  readonly id: string;
  /** `change` (a frame's status, claim or visibility) or `access` (the reviewer's own access changed). */
  readonly event: string;
  readonly data: { kind: string; id: string; status?: string; role?: string };
}

/**
 * Opens GET /review/events with the client's session; `read` collects Server-Sent Events until
 * `enough` says so (the stream stays open between reads), `close` ends it.
 */
export async function openEvents(client: ReviewerClient, lastEventId?: string) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 20_000);
  const res = await fetch(`${client.base}/review/events`, {
    headers: { cookie: client.cookie, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const seen: SseEvent[] = [];
  let ended = false;
  return {
    /** Every event so far (this read's and earlier ones) once `enough` holds, or the stream ended. */
    async read(enough: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
      while (!enough(seen) && !ended) {
        const { value, done } = await reader.read();
        if (done) ended = true;
        buffer += decoder.decode(value ?? new Uint8Array(), { stream: !done });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.+)$/m.exec(block)?.[1] ?? '';
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) seen.push({ id, event, data: JSON.parse(data) as SseEvent['data'] });
        }
      }
      return [...seen];
    },
    /** Whether the server ended the stream. */
    ended: () => ended,
    close() {
      clearTimeout(timer);
      controller.abort();
    },
  };
}
