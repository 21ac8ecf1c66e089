import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Small values the browser carries for us (an SSO sign-in in progress, an invite link): JSON,
 * base64url, with an expiry and an HMAC-SHA256 over purpose and body, keyed by the session
 * secret. Readable by whoever holds them, but not forgeable, not extendable, and not usable for
 * another purpose.
 */
const mac = (secret: string, purpose: string, body: string) =>
  createHmac('sha256', secret).update(`${purpose}\n${body}`).digest('base64url');

export function sealValue(secret: string, purpose: string, payload: Record<string, unknown>, expiresAt: Date): string {
  const body = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(expiresAt.getTime() / 1000) })).toString(
    'base64url',
  );
  return `${body}.${mac(secret, purpose, body)}`;
}

/** The payload when `value` was sealed by us for `purpose` and has not expired; null otherwise. */
export function openValue(
  secret: string,
  purpose: string,
  value: string | undefined,
  now = new Date(),
): Record<string, unknown> | null {
  if (!value || value.length > 4096) return null;
  const dot = value.indexOf('.');
  if (dot < 1) return null;
  const body = value.slice(0, dot);
  const expected = Buffer.from(mac(secret, purpose, body));
  const given = Buffer.from(value.slice(dot + 1));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof payload['exp'] !== 'number' || payload['exp'] * 1000 <= now.getTime()) return null;
    return payload;
  } catch {
    return null;
  }
}
