import { COUNT_IN_WINDOW, type ScriptStore } from './login-throttle';

const PEEK = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
return { n, redis.call('PTTL', KEYS[1]) }`;

/** Subjects remembered locally at most; past it every `blocked` asks the store, as if each had failed. */
const MAX_LOCAL_SUBJECTS = 10_000;

/**
 * Failures per subject in a fixed window (e.g. invalid API keys per client address): `blocked`
 * is checked before any expensive work, `count` after a failure.
 *
 * `blocked` asks the store only for subjects this process has counted a failure of within the
 * window: a client that never failed here costs no store round trip (every agent request runs
 * this). Failures counted by other processes still count in the store, so each process serves
 * at most one failing attempt per subject and window before it starts asking.
 */
export function failureCounter(
  store: ScriptStore,
  options: { prefix: string; name: string; limit: number; windowMs: number; now?: () => number },
) {
  const now = options.now ?? Date.now;
  const key = (subject: string) => `${options.prefix}:${options.name}:${subject}`;
  const failedHereUntil = new Map<string, number>();
  const failedHere = (subject: string): boolean => {
    if (failedHereUntil.size >= MAX_LOCAL_SUBJECTS) return true;
    const until = failedHereUntil.get(subject);
    if (until === undefined) return false;
    if (until > now()) return true;
    failedHereUntil.delete(subject);
    return false;
  };
  return {
    /** Seconds to wait when `subject` is past the limit, else null. */
    async blocked(subject: string): Promise<number | null> {
      if (!failedHere(subject)) return null;
      const [count, ttl] = (await store.eval(PEEK, 1, key(subject))) as [number, number];
      return Number(count) >= options.limit ? Math.max(1, Math.ceil(Number(ttl) / 1000)) : null;
    },
    async count(subject: string): Promise<void> {
      if (failedHereUntil.size < MAX_LOCAL_SUBJECTS) failedHereUntil.set(subject, now() + options.windowMs);
      await store.eval(COUNT_IN_WINDOW, 1, key(subject), options.windowMs);
    },
  };
}
export type FailureCounter = ReturnType<typeof failureCounter>;
