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

/** The stream of recent changes, under the prefix. */
export function reviewChangesKeys(prefix: string): { stream: string } {
  return { stream: `${prefix}:review-changes` };
}

/**
 * Appends a change to the capped stream: one command (its id becomes the SSE event id). Every
 * API instance's open event streams read it from there (a blocking XREAD per instance), so no
 * separate announcement is sent. Never throws: a change that cannot be written is picked up by
 * the workbench's fallback polling.
 */
export function reviewChangePublisher(redis: Redis, prefix: string): ReviewChangePublisher {
  const keys = reviewChangesKeys(prefix);
  return {
    async publish(change) {
      try {
        await redis.xadd(keys.stream, 'MAXLEN', '~', String(KEEP), '*', 'change', JSON.stringify(change));
      } catch {
        // Redis is down: readers fall back to polling.
      }
    },
  };
}

/** Every successful status transition of `db` is announced (after its transaction committed). */
export function withReviewChanges<
  D extends {
    transition(
      request: { id: string; to: string },
      ...rest: never[]
    ): Promise<{ ok: boolean; submission?: { channelId: string; status: string } }>;
  },
>(db: D, publisher: ReviewChangePublisher): D {
  return {
    ...db,
    async transition(...args: Parameters<D['transition']>) {
      const [request] = args;
      const result = await (db.transition as (...a: typeof args) => ReturnType<D['transition']>)(...args);
      if (result.ok) {
        const channel = result.submission?.channelId;
        await publisher.publish({
          kind: 'status',
          id: request.id,
          // The moved row's: work before the change may have chosen another target (a review policy).
          status: result.submission?.status ?? request.to,
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

const parseEntry = ([id, fields]: [string, string[]]): ReviewChangeEvent | null => {
  const body = fields[fields.indexOf('change') + 1];
  if (!body) return null;
  try {
    return { id, change: JSON.parse(body) as ReviewChange };
  } catch {
    return null; // not ours
  }
};

/** How long one blocking read waits before it is sent again (and notices a close). */
const BLOCK_MS = 5_000;

/**
 * One reading connection per process (a duplicate of `redis`, opened with the first listener):
 * a loop of blocking XREADs from the stream's end, fanned out to every open event stream.
 */
export function reviewChangeSubscriber(redis: Redis, prefix: string): ReviewChangeSubscriber {
  const keys = reviewChangesKeys(prefix);
  const local = new EventEmitter();
  local.setMaxListeners(0);
  let connection: Promise<Redis> | null = null;

  async function follow(reader: Redis, from: string) {
    let last = from;
    while (connection) {
      try {
        const read = await reader.xread('COUNT', 500, 'BLOCK', BLOCK_MS, 'STREAMS', keys.stream, last);
        for (const entry of read?.[0]?.[1] ?? []) {
          last = entry[0];
          const event = parseEntry(entry);
          if (event) local.emit('change', event);
        }
      } catch {
        if (reader.status === 'end') return;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  const connect = () => {
    connection ??= (async () => {
      const reader = redis.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
      reader.on('error', () => undefined);
      // From the newest entry now: what comes after it is live; what came before is replayed.
      const newest = await reader.xrevrange(keys.stream, '+', '-', 'COUNT', 1);
      void follow(reader, newest[0]?.[0] ?? '0-0');
      return reader;
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
        for (const row of rows) {
          const event = parseEntry(row);
          if (event) deliver(event);
        }
      }
      replaying = false;
      buffered.splice(0).forEach(deliver);
      return () => local.off('change', onChange);
    },
    async close() {
      const reader = await connection?.catch(() => null);
      connection = null;
      reader?.disconnect();
    },
  };
}
