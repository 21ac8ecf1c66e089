import { isIP } from 'node:net';

/** What Express's `trust proxy` is given: nothing, a hop count, or the proxies' addresses/CIDRs. */
export type TrustProxy = false | number | readonly string[];

// Express's (proxy-addr's) names for address ranges.
const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (NAMED.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Parses TRUST_PROXY: `false`/`0`, a hop count (`1` = one proxy in front of us), or a
 * comma-separated list of proxy addresses/CIDRs. `true` is refused: with it every client chooses
 * its own address through X-Forwarded-For, which defeats per-address limits.
 */
export function parseTrustProxy(value: string): { ok: true; value: TrustProxy } | { ok: false; message: string } {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false' || text === '0') return { ok: true, value: false };
  if (text === 'true') {
    return {
      ok: false,
      message:
        'true is refused: it lets any client choose its own address through X-Forwarded-For. ' +
        'Give the number of proxies in front of the API (e.g. 1) or their addresses/CIDRs.',
    };
  }
  if (/^\d+$/.test(text)) return { ok: true, value: Number(text) };
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (bad.length > 0) {
    return { ok: false, message: `must be false, a hop count, or addresses/CIDRs; not ${bad.join(', ')}` };
  }
  return { ok: true, value: entries };
}
