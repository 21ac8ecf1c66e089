import type { Server } from 'node:http';
import type { Request, Response } from 'express';
import type { ReviewerPrincipal } from '@framedesk/access';
import { EVERY_REVIEWER } from '@framedesk/db';
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

async function scopeOf(access: StreamAccess, me: ReviewerPrincipal): Promise<Scope> {
  return me.role === 'admin' ? 'all' : access.memberChannels(me.reviewerId);
}

/**
 * `GET /review/events`: Server-Sent Events of review changes (status, claim, visibility) in the
 * reviewer's channels, each with the id of its entry in the Redis stream, so a reconnecting
 * browser resumes after `Last-Event-ID`. When the reviewer's role, channels or session change,
 * the stream re-reads them before the next change goes out and sends `event: access`; a session
 * that ended (sign-out, revoked, disabled) ends the stream. It also ends when the server stops
 * listening (shutdown).
 */
export function reviewEventsHandler(
  subscriber: ReviewChangeSubscriber,
  access: StreamAccess,
  token: (req: Request) => string | undefined,
) {
  return async (req: Request, res: Response) => {
    let me = res.locals['reviewer'] as ReviewerPrincipal;
    let scope = await scopeOf(access, me);
    const lastId =
      req.get('last-event-id') ?? (typeof req.query['last_event_id'] === 'string' ? req.query['last_event_id'] : null);
    // Listening before the headers go out: whatever happens after the client sees 200 reaches it.
    const pending: string[] = [];
    let open = false;
    let ended = false;
    const write = (text: string) => (open ? res.write(text) : pending.push(text));
    // One change at a time, in order: a change of access is applied before the changes after it.
    let chain = Promise.resolve();
    const then = (work: () => Promise<void>) => {
      chain = chain.then(work).catch(() => void res.destroy());
    };
    const channels = new Map<string, string | null>();
    const inScope = async (change: ReviewChange) => {
      if (scope === 'all') return true;
      let channel = change.channel ?? channels.get(change.id);
      if (channel === undefined) channels.set(change.id, (channel = await access.channelOf(change.id)));
      return channel !== null && scope.has(channel);
    };

    const stopAccess = await access.onChange((reviewerId) => {
      if (reviewerId !== me.reviewerId && reviewerId !== EVERY_REVIEWER) return;
      then(async () => {
        const now = await access.reviewer(token(req));
        if (!now) {
          ended = true;
          res.end();
          return;
        }
        me = now;
        scope = await scopeOf(access, me);
        write(`event: access\ndata: ${JSON.stringify({ role: me.role })}\n\n`);
      });
    });
    const stopChanges = await subscriber.listen(lastId || null, ({ id, change }) =>
      then(async () => {
        if (ended || !(await inScope(change))) return;
        const { channel: _channel, ...visible } = change;
        write(`id: ${id}\nevent: change\ndata: ${JSON.stringify(visible)}\n\n`);
      }),
    );
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
      if (++ticks % HEARTBEAT_TICKS === 0) res.write(': keep-alive\n\n');
    }, 1000);
    res.on('close', () => {
      clearInterval(timer);
      stopChanges();
      stopAccess();
    });
  };
}
