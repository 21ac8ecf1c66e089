/**
 * Per-key fixed-window rate limiting in Redis. Takes a minimal structural client so this lib
 * does not depend on ioredis; any client with these three commands fits.
 */
export interface RateLimitStore {
  incr(key: string): Promise<number>;
  pexpire(key: string, milliseconds: number): Promise<number>;
  pttl(key: string): Promise<number>;
}

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `subject`; throws only when the store fails (callers fail open). */
  hit(subject: string): Promise<RateLimitDecision>;
}

export function createRateLimiter(
  store: RateLimitStore,
  options: { prefix: string; limit: number; windowMs?: number },
): RateLimiter {
  const windowMs = options.windowMs ?? 60_000;
  return {
    async hit(subject) {
      const window = Math.floor(Date.now() / windowMs);
      const key = `${options.prefix}:ratelimit:${subject}:${window}`;
      const count = await store.incr(key);
      let ttl = await store.pttl(key);
      // The first hit sets the expiry; a key left without one (a crash between the two) is fixed here.
      if (count === 1 || ttl < 0) {
        ttl = windowMs;
        await store.pexpire(key, windowMs);
      }
      return {
        allowed: count <= options.limit,
        limit: options.limit,
        remaining: Math.max(0, options.limit - count),
        resetSeconds: Math.max(1, Math.ceil(ttl / 1000)),
      };
    },
  };
}
