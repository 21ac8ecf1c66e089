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
export function reviewChangesKeys(prefix: string): { stream: string; reader: string } {
  // `reader` names the reading connection (CLIENT LIST shows which connection is whose).
  return { stream: `${prefix}:review-changes`, reader: `${prefix}:review-changes-reader` };
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
  listen(
    lastEventId: string | null,
    listener: (event: ReviewChangeEvent) => void,
    /**
     * Changes may have been missed: the reading connection was cut or Redis switched primaries
     * (a failover loses the last writes, and changes published meanwhile were dropped), or
     * `lastEventId` is past the stream's end (the stream rolled back). The screen reads again.
     */
    onResync?: () => void,
  ): Promise<() => void>;
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
export function reviewChangeSubscriber(
  redis: Redis,
  prefix: string,
): ReviewChangeSubscriber & {
  /** How many times listeners were told to resync (the `framedesk_live_queue_resyncs_total` metric). */
  readonly resyncs: { count: number };
} {
  const resyncs = { count: 0 };
  const keys = reviewChangesKeys(prefix);
  const local = new EventEmitter();
  local.setMaxListeners(0);
  let connection: Promise<Redis> | null = null;

  /**
   * Reads on until closed. A failed read (the connection cut, UNBLOCKED by a demotion, READONLY,
   * LOADING) is retried; the first read that succeeds after one tells every listener to resync.
   * A connection ioredis gave up on (`end`) is opened again: the stream never goes silent.
   */
  async function follow(reader: Redis, from: string) {
    let last = from;
    let broken = false;
    while (connection) {
      try {
        if (reader.status === 'end') await reader.connect().catch(() => undefined);
        const read = await reader.xread('COUNT', 500, 'BLOCK', BLOCK_MS, 'STREAMS', keys.stream, last);
        if (broken) {
          broken = false;
          resyncs.count++;
          local.emit('resync');
        }
        for (const entry of read?.[0]?.[1] ?? []) {
          last = entry[0];
          const event = parseEntry(entry);
          if (event) local.emit('change', event);
        }
      } catch {
        broken = true;
        if (connection === null) return;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  const connect = () => {
    connection ??= (async () => {
      const reader = redis.duplicate({
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        connectionName: keys.reader,
      });
      reader.on('error', () => undefined);
      // A reconnection (a failover moves every client to the new primary) may have missed changes.
      let opened = false;
      reader.on('ready', () => {
        if (opened) {
          resyncs.count++;
          local.emit('resync');
        }
        opened = true;
      });
      // From the newest entry now: what comes after it is live; what came before is replayed.
      const newest = await reader.xrevrange(keys.stream, '+', '-', 'COUNT', 1);
      void follow(reader, newest[0]?.[0] ?? '0-0');
      return reader;
    })();
    return connection;
  };

  return {
    resyncs,
    async listen(lastEventId, listener, onResync) {
      let last = lastEventId;
      const resync = () => onResync?.();
      if (onResync) local.on('resync', resync);
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
        // Past the newest entry: the stream lost what this client saw (a failover rolled it back).
        const newest = (await redis.xrevrange(keys.stream, '+', '-', 'COUNT', 1))[0]?.[0];
        if (!newest || afterId(lastEventId, newest)) resync();
        const rows = await redis.xrange(keys.stream, `(${lastEventId}`, '+', 'COUNT', KEEP);
        for (const row of rows) {
          const event = parseEntry(row);
          if (event) deliver(event);
        }
      }
      replaying = false;
      buffered.splice(0).forEach(deliver);
      return () => {
        local.off('change', onChange);
        local.off('resync', resync);
      };
    },
    async close() {
      const reader = await connection?.catch(() => null);
      connection = null;
      reader?.disconnect();
    },
  };
}
