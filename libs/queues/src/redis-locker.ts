import { randomBytes } from 'node:crypto';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import type { Redis } from 'ioredis';

export interface RedisLockerOptions {
  /** Key prefix, already hash-tagged (see `redisKeyPrefix`). */
  readonly prefix: string;
  /** How long a lock lives without renewal: a crashed holder frees it after this. */
  readonly ttlMs?: number;
  /** How long a request waits for a held lock before it is refused. */
  readonly waitMs?: number;
  /** What a request refused on the lock of upload `id` throws (the caller's error type). */
  readonly busyError: (id: string) => Error;
}

/** Deletes / extends the key only while it still holds our token. */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * The tus `Locker` over Redis: one writer per upload across every API instance. A lock is
 * `SET key token NX PX ttl`, renewed every third of its life while held and released only by
 * its own token, so a killed instance frees its uploads within `ttlMs`.
 *
 * Unlike tus's in-memory locker, a second request does not cancel the holder: it waits up to
 * `waitMs` and is then refused, so of two concurrent PATCHes exactly one writes. A lost
 * renewal (Redis said the key is gone or someone else's) cancels the holder's request.
 */
export class RedisLocker implements Locker {
  private readonly ttlMs: number;
  private readonly waitMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisLockerOptions,
  ) {
    this.ttlMs = options.ttlMs ?? 6_000;
    this.waitMs = options.waitMs ?? 3_000;
  }

  newLock(id: string): Lock {
    const key = `${this.options.prefix}:tus-lock:${id}`;
    const token = randomBytes(12).toString('hex');
    let renewal: NodeJS.Timeout | undefined;
    const { redis, ttlMs, waitMs } = this;
    const busyError = this.options.busyError;
    return {
      async lock(signal: AbortSignal, cancelReq: RequestRelease): Promise<void> {
        const deadline = Date.now() + waitMs;
        let delay = 20;
        while ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') {
          if (signal.aborted || Date.now() >= deadline) throw busyError(id);
          await sleep(delay, signal);
          delay = Math.min(delay * 2, 200);
        }
        renewal = setInterval(
          () => {
            redis.eval(RENEW, 1, key, token, String(ttlMs)).then(
              (kept) => {
                if (kept !== 1) void cancelReq();
              },
              () => undefined,
            );
          },
          Math.floor(ttlMs / 3),
        );
        renewal.unref();
      },
      async unlock(): Promise<void> {
        if (renewal) clearInterval(renewal);
        renewal = undefined;
        await redis.eval(RELEASE, 1, key, token);
      },
    };
  }
}
