import { COUNT_IN_WINDOW, type ScriptStore } from './login-throttle';

/**
 * Per-key fixed-window rate limiting in Redis, one round trip per request: a Lua script counts
 * the hit, sets the window's expiry when the key has none (first hit, or a key left without one)
 * and answers the count and the time left. Takes a minimal structural client so this lib does not
 * depend on ioredis; any client with `eval` fits.
 */
export type RateLimitStore = ScriptStore;

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

export interface RateLimiter {
  /**
   * Counts `cost` requests (default one, e.g. the calls of an MCP batch) for `subject`; throws
   * only when the store fails (callers fail open).
   */
  hit(subject: string, cost?: number): Promise<RateLimitDecision>;
}

export function createRateLimiter(
  store: RateLimitStore,
  options: { prefix: string; limit: number; windowMs?: number },
): RateLimiter {
  const windowMs = options.windowMs ?? 60_000;
  return {
    async hit(subject, cost = 1) {
      const window = Math.floor(Date.now() / windowMs);
      const key = `${options.prefix}:ratelimit:${subject}:${window}`;
      const [count, ttl] = (await store.eval(COUNT_IN_WINDOW, 1, key, windowMs, cost)) as [number, number];
      return {
        allowed: count <= options.limit,
        limit: options.limit,
        remaining: Math.max(0, options.limit - count),
        resetSeconds: Math.max(1, Math.ceil(ttl / 1000)),
      };
    },
  };
}
