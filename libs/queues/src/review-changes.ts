import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';

/** Something a reviewer's screen should show: a frame's status, claim or visibility changed. */
export interface ReviewChange {
  readonly kind: 'status' | 'claim' | 'visibility';
  readonly id: string;
  readonly status?: string;
  /** The submission's channel id: a reviewer's event stream carries only their channels' changes. */
  readonly channel?: string;
}

export interface ReviewChangePublisher {
  publish(change: ReviewChange): Promise<void>;
}

/** Recent changes are kept (capped) so a reconnecting client catches up from its Last-Event-ID. */
const KEEP = 1000;

/** The stream of recent changes and the pub/sub channel announcing them, both under the prefix. */
export function reviewChangesKeys(prefix: string): { stream: string; channel: string } {
  return { stream: `${prefix}:review-changes`, channel: `${prefix}:review-changes:live` };
}

/**
 * Appends a change to the capped stream (its id becomes the SSE event id) and announces it on
 * pub/sub, so every API instance's open event streams hear of it. Never throws: a change that
 * cannot be announced is picked up by the workbench's fallback polling.
 */
export function reviewChangePublisher(redis: Redis, prefix: string): ReviewChangePublisher {
  const keys = reviewChangesKeys(prefix);
  return {
    async publish(change) {
      try {
        const body = JSON.stringify(change);
        const id = await redis.xadd(keys.stream, 'MAXLEN', '~', String(KEEP), '*', 'change', body);
        if (id) await redis.publish(keys.channel, JSON.stringify({ id, change }));
      } catch {
        // Redis is down: readers fall back to polling.
      }
    },
  };
}

/** Every successful status transition of `db` is announced (after its transaction committed). */
export function withReviewChanges<
  D extends {
    transition(request: { id: string; to: string }): Promise<{ ok: boolean; submission?: { channelId: string } }>;
  },
>(db: D, publisher: ReviewChangePublisher): D {
  return {
    ...db,
    async transition(request: Parameters<D['transition']>[0]) {
      const result = await db.transition(request);
      if (result.ok) {
        const channel = result.submission?.channelId;
        await publisher.publish({
          kind: 'status',
          id: request.id,
          status: request.to,
          ...(channel ? { channel } : {}),
        });
      }
      return result;
    },
  } as D;
}

export interface ReviewChangeEvent {
  readonly id: string;
  readonly change: ReviewChange;
}

export interface ReviewChangeSubscriber {
  /**
   * Calls `listener` for each change after `lastEventId` (replayed from the stream) and then for
   * each new one. Returns the function that stops listening.
   */
  listen(lastEventId: string | null, listener: (event: ReviewChangeEvent) => void): Promise<() => void>;
  close(): Promise<void>;
}

const afterId = (a: string, b: string): boolean => {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am! > bm! || (am === bm && as! > bs!);
};

/** How often a process reads the stream although nothing was announced (a publisher died after XADD). */
const CATCH_UP_MS = 2_000;

/**
 * One pub/sub connection per process (a duplicate of `redis`, opened with the first listener),
 * fanned out to every open event stream. The capped stream is the truth; an announcement only
 * wakes the process, which then reads the stream after the last entry it saw. So changes
 * appended by several processes reach a listener in the stream's order even when their
 * announcements arrive in another order, or never (a process killed between XADD and PUBLISH,
 * a subscription re-made after Redis restarted); a periodic read catches those up.
 */
export function reviewChangeSubscriber(redis: Redis, prefix: string): ReviewChangeSubscriber {
  const keys = reviewChangesKeys(prefix);
  const local = new EventEmitter();
  local.setMaxListeners(0);
  let connection: Promise<Redis> | null = null;
  let seen: string | null = null;
  let reading: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  /** Emits every entry after the last one seen, in order; one read at a time, re-run if woken meanwhile. */
  const readStream = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          const rows = await redis.xrange(keys.stream, seen ? `(${seen}` : '-', '+', 'COUNT', KEEP);
          for (const [id, fields] of rows) {
            const body = fields[fields.indexOf('change') + 1];
            seen = id;
            if (body) local.emit('change', { id, change: JSON.parse(body) as ReviewChange });
          }
        } catch {
          // Redis is down: the next announcement or catch-up reads again
        }
      } while (again);
    })().finally(() => {
      reading = null;
    });
    return reading;
  };

  const connect = () => {
    connection ??= (async () => {
      // Changes from now on: start after the stream's current last entry.
      // (With Redis down, "now": stream ids are times in ms.)
      const [last] = await redis.xrevrange(keys.stream, '+', '-', 'COUNT', 1).catch(() => [[`${Date.now()}-0`]]);
      seen = last?.[0] ?? '0-0';
      const sub = redis.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
      sub.on('error', () => undefined);
      sub.on('message', () => void readStream());
      // Re-subscribed after a reconnect: what was appended meanwhile was not announced to us.
      sub.on('ready', () => void readStream());
      await sub.subscribe(keys.channel);
      timer = setInterval(() => void readStream(), CATCH_UP_MS);
      timer.unref();
      return sub;
    })();
    return connection;
  };

  return {
    async listen(lastEventId, listener) {
      let last = lastEventId;
      const buffered: ReviewChangeEvent[] = [];
      let replaying = true;
      const deliver = (event: ReviewChangeEvent) => {
        if (last && !afterId(event.id, last)) return;
        last = event.id;
        listener(event);
      };
      const onChange = (event: ReviewChangeEvent) => (replaying ? buffered.push(event) : deliver(event));
      local.on('change', onChange);
      await connect();
      if (lastEventId && /^\d+-\d+$/.test(lastEventId)) {
        const rows = await redis.xrange(keys.stream, `(${lastEventId}`, '+', 'COUNT', KEEP);
        for (const [id, fields] of rows) {
          const body = fields[fields.indexOf('change') + 1];
          if (body) deliver({ id, change: JSON.parse(body) as ReviewChange });
        }
      }
      replaying = false;
      buffered.splice(0).forEach(deliver);
      return () => local.off('change', onChange);
    },
    async close() {
      clearInterval(timer);
      const sub = await connection?.catch(() => null);
      connection = null;
      sub?.disconnect();
    },
  };
}
