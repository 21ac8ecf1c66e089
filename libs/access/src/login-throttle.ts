import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** The one Redis command login throttling needs (ioredis satisfies it; tests can fake it). */
export interface ScriptStore {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

export const LOGIN_WINDOW_SECONDS = 15 * 60;

// Counts one attempt on every key and gives each its expiry on first use (or when it lost it),
// all in one round trip, so parallel requests cannot all read "under the limit" before counting.
// KEYS: the counters; ARGV[1]: the window in ms; ARGV[2]: how much to count (default 1). Returns
// { count, ms left } per key, in order. The rate limiter and the failure counter count with it too.
export const COUNT_IN_WINDOW = `
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCRBY', key, tonumber(ARGV[2] or '1'))
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  out[#out + 1] = n
  out[#out + 1] = ttl
end
return out`;

// ARGV[1] = 1: forget the first key (a success clears the email's failures); then give back one
// attempt on the others (an attempt that was not a failure).
const RELEASE = `
for i, key in ipairs(KEYS) do
  if i == 1 and ARGV[1] == '1' then
    redis.call('DEL', key)
  elseif tonumber(redis.call('GET', key) or '0') > 0 then
    redis.call('DECR', key)
  end
end
return 1`;

/**
 * The throttling key of a client address: IPv4 as is, IPv6 by its /64 (one customer's network
 * hands out a whole /64, so counting single IPv6 addresses counts nothing).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  // An embedded IPv4 tail only matters past the first 64 bits; treat it as two groups.
  const groups = address.includes('::') ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t] : h;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

export interface LoginReservation {
  /** Seconds until the caller may try again, or null when the attempt may go ahead. */
  readonly retryAfter: number | null;
  /** Ends the attempt: `success` clears the failures of this email at this address. */
  release(outcome: 'success' | 'not_evaluated'): Promise<void>;
}

/** Failed logins per (email, address) and per address, reserved atomically before any password is checked. */
export function loginThrottle(store: ScriptStore, options: { keyPrefix: string; limit: number }) {
  const keysOf = (email: string, ip: string) => {
    const address = addressKey(ip);
    const pair = createHash('sha256').update(`${email}\n${address}`).digest('hex');
    return [`${options.keyPrefix}:login:email:${pair}`, `${options.keyPrefix}:login:ip:${address}`];
  };
  return {
    async reserve(email: string, ip: string): Promise<LoginReservation> {
      const keys = keysOf(email, ip);
      const out = (await store.eval(COUNT_IN_WINDOW, keys.length, ...keys, LOGIN_WINDOW_SECONDS * 1000)) as number[];
      let retryAfter: number | null = null;
      for (let i = 0; i < keys.length; i++) {
        if (Number(out[2 * i]) > options.limit) {
          const seconds = Math.max(1, Math.ceil(Number(out[2 * i + 1]) / 1000));
          retryAfter = Math.max(retryAfter ?? 0, seconds);
        }
      }
      return {
        retryAfter,
        release: async (outcome) => {
          await store.eval(RELEASE, keys.length, ...keys, outcome === 'success' ? '1' : '0');
        },
      };
    },
  };
}
export type LoginThrottle = ReturnType<typeof loginThrottle>;
