import { createHash } from 'node:crypto';
import type { ScriptStore } from './login-throttle';

const MARK = `return redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX')`;

/**
 * True the first time `value` is seen for `purpose` within `ttlMs`, false every later time (one
 * Redis round trip, shared by every API instance): an SSO sign-in's state is accepted once.
 */
export function firstUse(store: ScriptStore, keyPrefix: string) {
  return async (purpose: string, value: string, ttlMs: number): Promise<boolean> => {
    const key = `${keyPrefix}:once:${purpose}:${createHash('sha256').update(value).digest('base64url')}`;
    return (await store.eval(MARK, 1, key, ttlMs)) === 'OK';
  };
}
