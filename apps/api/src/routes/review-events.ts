import type { Server } from 'node:http';
import type { Request, Response } from 'express';
import type { ReviewerPrincipal } from '@framedesk/access';
import { EVERY_REVIEWER } from '@framedesk/db';
import { Gauge, type Registry } from '@framedesk/observability';
import type { ReviewChange, ReviewChangeSubscriber } from '@framedesk/queues';

const HEARTBEAT_TICKS = 15;

/** What an event stream needs to know, and to hear, about its reviewer's access. */
export interface StreamAccess {
  /** The session's reviewer as of now; null once the session ended or the reviewer was disabled. */
  reviewer(token: string | undefined): Promise<ReviewerPrincipal | null>;
  /** Ids of the channels a reviewer is a member of. */
  memberChannels(reviewerId: string): Promise<Set<string>>;
  /** A submission's channel (for a change announced without one). */
  channelOf(submissionId: string): Promise<string | null>;
  /** Calls `listener` with a reviewer id (or EVERY_REVIEWER) when someone's access changed. */
  onChange(listener: (reviewerId: string) => void): Promise<() => void>;
}

type Scope = 'all' | Set<string>;

/** Bytes a stream may have waiting for its client; past it the client is not reading and is cut off. */
export const STREAM_BUFFER_MAX_BYTES = 256 * 1024;

export interface StreamLimits {
  /** REVIEW_STREAMS_PER_SESSION: open streams of one session in this process. */
  readonly perSession: number;
  /** REVIEW_STREAMS_PER_REVIEWER: open streams of one reviewer (all sessions) in this process. */
  readonly perReviewer: number;
  /** Default STREAM_BUFFER_MAX_BYTES. */
  readonly bufferBytes?: number;
}

interface OpenStream {
  readonly sessionId: string;
  readonly reviewerId: string;
  /** Tells the client why and ends the stream (and leaves the registry at once). */
  evict(): void;
}

/**
 * This process's open streams by session and by reviewer, oldest first. Adding one past a limit
 * evicts the oldest of its session (or reviewer); a closed stream leaves at once, and so does its
 * session's or reviewer's entry when it was the last.
 */
function openStreams(limits: StreamLimits) {
  const bySession = new Map<string, Set<OpenStream>>();
  const byReviewer = new Map<string, Set<OpenStream>>();
  let count = 0;
  const bucket = (map: Map<string, Set<OpenStream>>, key: string) => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    return set;
  };
  const leave = (map: Map<string, Set<OpenStream>>, key: string, stream: OpenStream) => {
    const set = map.get(key);
    if (set?.delete(stream) && set.size === 0) map.delete(key);
  };
  const remove = (stream: OpenStream) => {
    if (!bySession.get(stream.sessionId)?.has(stream)) return;
    leave(bySession, stream.sessionId, stream);
    leave(byReviewer, stream.reviewerId, stream);
    count--;
  };
  const makeRoom = (set: Set<OpenStream>, limit: number) => {
    for (const oldest of set) {
      if (set.size < limit) return;
      remove(oldest);
      oldest.evict();
    }
  };
  return {
    add(stream: OpenStream) {
      makeRoom(bucket(bySession, stream.sessionId), limits.perSession);
      makeRoom(bucket(byReviewer, stream.reviewerId), limits.perReviewer);
      bucket(bySession, stream.sessionId).add(stream);
      bucket(byReviewer, stream.reviewerId).add(stream);
      count++;
    },
    remove,
    /** Open streams, sessions and reviewers with one: all three return to 0 when every stream closed. */
    size: () => ({ streams: count, sessions: bySession.size, reviewers: byReviewer.size }),
  };
}

export interface ReviewEventsOptions {
  readonly limits: StreamLimits;
  /** Where `framedesk_review_streams` (open streams in this process) is registered. */
  readonly metrics?: Registry;
  /** Counts each `event: resync` sent (framedesk_live_queue_resyncs_total). */
  readonly onResync?: () => void;
}

async function scopeOf(access: StreamAccess, me: ReviewerPrincipal): Promise<Scope> {
  return me.role === 'admin' ? 'all' : access.memberChannels(me.reviewerId);
}

/**
 * `GET /review/events`: Server-Sent Events of review changes (status, claim, visibility) in the
 * reviewer's channels, each with the id of its entry in the Redis stream, so a reconnecting
 * browser resumes after `Last-Event-ID`. When the reviewer's role, channels or session change,
 * the stream re-reads them before the next change goes out and sends `event: access`; a session
 * that ended (sign-out, revoked, disabled, expired) ends the stream. It also ends when the server
 * stops listening (shutdown).
 *
 * The stream listens for access changes before it reads the reviewer's access, so a change
 * committed while it opens is never missed (it is re-read after).
 */
export function reviewEventsHandler(
  subscriber: ReviewChangeSubscriber,
  access: StreamAccess,
  token: (req: Request) => string | undefined,
  options: ReviewEventsOptions,
) {
  const streams = openStreams(options.limits);
  const bufferBytes = options.limits.bufferBytes ?? STREAM_BUFFER_MAX_BYTES;
  if (options.metrics)
    new Gauge({
      name: 'framedesk_review_streams',
      help: 'Live event streams (GET /review/events) open on this process',
      registers: [options.metrics],
      collect() {
        this.set(streams.size().streams);
      },
    });
  const handler = async (req: Request, res: Response) => {
    let me = res.locals['reviewer'] as ReviewerPrincipal;
    // Nothing is in scope until the reviewer's access has been read (after listening for changes).
    let scope: Scope = new Set();
    const lastId =
      req.get('last-event-id') ?? (typeof req.query['last_event_id'] === 'string' ? req.query['last_event_id'] : null);
    // Listening before the headers go out: whatever happens after the client sees 200 reaches it.
    const pending: string[] = [];
    let open = false;
    let ended = false;
    let closed = false;
    const stops: (() => void)[] = [];
    const stop = () => stops.splice(0).forEach((s) => s());
    const end = () => {
      ended = true;
      res.end();
    };
    // A client gone while the stream opens: what was registered so far is released now, and the
    // rest as soon as it is (`stops` is emptied at close and filled after it only to be emptied).
    res.on('close', () => {
      closed = ended = true;
      stop();
    });
    const keep = (s: () => void) => (closed ? s() : stops.push(s));
    // A client that stops reading leaves bytes waiting here: past the bound it is cut off, rather
    // than grow this process's memory with every change that follows.
    const write = (text: string) => {
      if (!open) return void pending.push(text);
      if (ended) return;
      res.write(text);
      if (res.writableLength > bufferBytes) res.destroy();
    };
    // One change at a time, in order: a change of access is applied before the changes after it.
    // A burst of changes (the reader hands them over 500 at a time) would otherwise run as one
    // unbroken series of microtasks on every open stream: every 16th change waits for the event
    // loop's next turn, so other requests are answered in between.
    let chain = Promise.resolve();
    let sinceTurn = 0;
    const then = (work: () => Promise<void>) => {
      const turn = ++sinceTurn % 16 === 0;
      chain = chain
        .then(() => (turn ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined))
        .then(work)
        .catch(() => void res.destroy());
    };
    const channels = new Map<string, string | null>();
    const inScope = async (change: ReviewChange) => {
      if (scope === 'all') return true;
      let channel = change.channel ?? channels.get(change.id);
      if (channel === undefined) {
        if (channels.size >= 1000) channels.clear(); // a cache, not a record of every frame seen
        channels.set(change.id, (channel = await access.channelOf(change.id)));
      }
      return channel !== null && scope.has(channel);
    };
    /** Re-reads the session and what it may see; ends the stream when the session is gone. */
    const reread = async (announce: boolean) => {
      if (ended) return;
      const now = await access.reviewer(token(req));
      if (!now) return end();
      me = now;
      scope = await scopeOf(access, me);
      if (announce) write(`event: access\ndata: ${JSON.stringify({ role: me.role })}\n\n`);
    };

    keep(
      await access.onChange((reviewerId) => {
        if (reviewerId === me.reviewerId || reviewerId === EVERY_REVIEWER) then(() => reread(true));
      }),
    );
    // Listening first, then reading: a change that lands in between is re-read after this read.
    then(() => reread(false));
    keep(
      await subscriber.listen(
        lastId || null,
        ({ id, change }) =>
          then(async () => {
            if (ended || !(await inScope(change))) return;
            const { channel: _channel, ...visible } = change;
            write(`id: ${id}\nevent: change\ndata: ${JSON.stringify(visible)}\n\n`);
          }),
        // Redis switched (a failover) or the stream lost what this client saw: refresh everything.
        () =>
          then(async () => {
            if (ended) return;
            options.onResync?.();
            write(`event: resync\ndata: ${JSON.stringify({ reason: 'redis_switched' })}\n\n`);
          }),
      ),
    );
    if (closed) return;
    // Past a limit the oldest stream of the session (or reviewer) is told and closed; the workbench
    // then polls in that tab instead of reconnecting.
    const entry: OpenStream = {
      sessionId: me.sessionId,
      reviewerId: me.reviewerId,
      evict: () => {
        write(`event: closed\ndata: ${JSON.stringify({ reason: 'too_many_streams' })}\n\n`);
        end();
      },
    };
    streams.add(entry);
    keep(() => streams.remove(entry));
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write('retry: 1000\n\n' + pending.join(''));
    open = true;
    const server = (req.socket as { server?: Server }).server;
    let ticks = 0;
    const timer = setInterval(() => {
      if (server && !server.listening) return res.end();
      // The session's end is the stream's: an expired session reads nothing more.
      if (Date.now() >= me.expiresAt.getTime()) return end();
      if (++ticks % HEARTBEAT_TICKS === 0) write(': keep-alive\n\n');
    }, 1000);
    keep(() => clearInterval(timer));
  };
  return Object.assign(handler, { openStreams: () => streams.size() });
}
