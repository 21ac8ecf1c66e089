// An in-process API on a database and Redis prefix of its own, seeded for review tests.
import { createReviewer } from '@framedesk/access';
import type { Database, TransitionPatch } from '@framedesk/db';
import { newId, type ReviewerRole, type Visibility } from '@framedesk/domain';
import { erasureService } from '@framedesk/lifecycle';
import { ReviewerClient } from '@framedesk/testing';
import { expect } from 'vitest';
import type { ApiDependencies } from '../src/dependencies';
import { startTestServer } from './test-dependencies';

export interface ReviewHarness {
  readonly url: string;
  readonly deps: ApiDependencies;
  readonly db: Database;
  /** An admin unless told otherwise (role `reviewer` with `channels`). */
  seedReviewer(email: string, password: string, access?: ReviewerAccess): Promise<void>;
  /** `seedReviewer`, then a client signed in as them. */
  signIn(email: string, password: string, access?: ReviewerAccess): Promise<ReviewerClient>;
  /** Creates the channel when missing. */
  seedChannel(slug: string): Promise<void>;
  /** Stores `bytes` as a media object of the submission (an original, or a variant such as `thumbnail`). */
  seedMedia(id: string, kind: 'original' | 'variant', name: string, bytes: Buffer, contentType: string): Promise<void>;
  seedSubmission(input?: SeedInput): Promise<string>;
  /** An operator's erasure of one frame (`media erase --submission`), as the CLI runs it. */
  erase(submissionId: string): Promise<void>;
  close(): Promise<void>;
}

/** Who a seeded reviewer is: an admin unless told otherwise (role `reviewer` with `channels`). */
export interface ReviewerAccess {
  readonly role?: ReviewerRole;
  readonly channels?: string[];
}

export interface SeedInput {
  readonly channel?: string;
  readonly agent?: string;
  readonly title?: string;
  readonly visibility?: Visibility;
  readonly mediaType?: 'image' | 'video';
  readonly date?: string;
  /** What the worker writes as it routes the frame to review (a policy's approvals, outcome, due date, priority). */
  readonly routing?: TransitionPatch;
}

export async function startReviewHarness(env: Record<string, string> = {}): Promise<ReviewHarness> {
  const server = await startTestServer({ env });
  const { url, deps } = server;
  const db = deps.db;
  return {
    url,
    deps,
    db,
    seedReviewer: (email, password, access) => seedReviewer(db, email, password, access),
    signIn: (email, password, access) => signIn({ url, deps }, email, password, access),
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
    seedSubmission: (input) => seedNeedsReview(db, input),
    async erase(submissionId) {
      await erasureService({
        db,
        storage: deps.storage,
        provider: deps.videoProvider,
        actor: 'cli:test',
        replayableHours: 24,
      }).erase({ submissionId });
    },
    close: () => server.close(),
  };
}

/** A reviewer with a password (an admin unless `access` says otherwise), their channels created. */
export async function seedReviewer(db: Database, email: string, password: string, access: ReviewerAccess = {}) {
  for (const slug of access.channels ?? []) await db.repos.channels.ensure(slug);
  await createReviewer(db, { email, password, role: access.role ?? 'admin', channels: access.channels ?? [] });
}

/** Seeds the reviewer on `server`'s database and returns a client signed in as them. */
export async function signIn(
  server: { url: string; deps: { db: Database } },
  email: string,
  password: string,
  access: ReviewerAccess = {},
): Promise<ReviewerClient> {
  await seedReviewer(server.deps.db, email, password, access);
  const client = new ReviewerClient(server.url);
  expect((await client.login(email, password)).status).toBe(201);
  return client;
}

/**
 * A frame waiting for review as the worker leaves it (received → media_processing → needs_review,
 * no media objects); the agent and channel are created when missing.
 */
export async function seedNeedsReview(db: Database, input: SeedInput = {}): Promise<string> {
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
    const patch = to === 'needs_review' ? input.routing : undefined;
    const r = await db.transition({ id, to, actor: { type: 'system' }, ...(patch ? { patch } : {}) });
    if (!r.ok) throw new Error(`seed transition to ${to} failed`);
  }
  return id;
}

/** Two regions of a rejection as a reviewer sends them, and as they are stored and shown (rounded, trimmed). */
export const TWO_REGIONS = [
  { x: 0.1, y: 0.2, width: 0.30000001, height: 0.4, label: ' logo cut off ' },
  { x: 0.5, y: 0, width: 0.5, height: 0.25, label: 'text unreadable' },
];
export const TWO_REGIONS_NORMALISED = [
  { x: 0.1, y: 0.2, width: 0.3, height: 0.4, label: 'logo cut off' },
  { x: 0.5, y: 0, width: 0.5, height: 0.25, label: 'text unreadable' },
];

// The reviewer's cookie jar is shared with the other apps' tests (libs/testing).
export { ReviewerClient } from '@framedesk/testing';

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
