/**
 * Per-key fixed-window rate limiting in Redis, one round trip per request: a Lua script counts
 * the hit, sets the window's expiry when the key has none (first hit, or a key left without one)
 * and answers the count and the time left. Takes a minimal structural client so this lib does not
 * depend on ioredis; any client with `eval` fits.
 */
export interface RateLimitStore {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
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

// KEYS[1] the window's counter, ARGV[1] the window in ms. Returns { count, ms left }.
const HIT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`;

export function createRateLimiter(
  store: RateLimitStore,
  options: { prefix: string; limit: number; windowMs?: number },
): RateLimiter {
  const windowMs = options.windowMs ?? 60_000;
  return {
    async hit(subject) {
      const window = Math.floor(Date.now() / windowMs);
      const key = `${options.prefix}:ratelimit:${subject}:${window}`;
      const [count, ttl] = (await store.eval(HIT, 1, key, windowMs)) as [number, number];
      return {
        allowed: count <= options.limit,
        limit: options.limit,
        remaining: Math.max(0, options.limit - count),
        resetSeconds: Math.max(1, Math.ceil(ttl / 1000)),
      };
    },
  };
}
