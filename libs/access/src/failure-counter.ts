import type { ScriptStore } from './login-throttle';

const PEEK = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
return { n, redis.call('PTTL', KEYS[1]) }`;

const COUNT = `
local n = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * Failures per subject in a fixed window (e.g. invalid API keys per client address): `blocked`
 * is checked before any expensive work, `count` after a failure.
 */
export function failureCounter(
  store: ScriptStore,
  options: { prefix: string; name: string; limit: number; windowMs: number },
) {
  const key = (subject: string) => `${options.prefix}:${options.name}:${subject}`;
  return {
    /** Seconds to wait when `subject` is past the limit, else null. */
    async blocked(subject: string): Promise<number | null> {
      const [count, ttl] = (await store.eval(PEEK, 1, key(subject))) as [number, number];
      return Number(count) >= options.limit ? Math.max(1, Math.ceil(Number(ttl) / 1000)) : null;
    },
    async count(subject: string): Promise<void> {
      await store.eval(COUNT, 1, key(subject), options.windowMs);
    },
  };
}
export type FailureCounter = ReturnType<typeof failureCounter>;
