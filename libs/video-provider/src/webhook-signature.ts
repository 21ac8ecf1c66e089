import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidNotificationError } from './video-provider';

/** `Webhook-Signature: time=<unix>,sig1=<hex>` as Cloudflare Stream sends it. */
export function signWebhook(secret: string, rawBody: Buffer | string, time: number): string {
  const sig = createHmac('sha256', secret).update(`${time}.`).update(rawBody).digest('hex');
  return `time=${time},sig1=${sig}`;
}

/**
 * HMAC-SHA256(secret, `${time}.${rawBody}`) compared in constant time; a `time` further than
 * `maxAgeSeconds` from now is refused so a captured notification cannot be replayed later.
 */
export function verifyWebhookSignature(input: {
  secret: string | undefined;
  rawBody: Buffer;
  header: string | undefined;
  now: Date;
  maxAgeSeconds: number;
}): void {
  if (!input.secret) throw new InvalidNotificationError('no webhook secret is configured');
  if (!input.header) throw new InvalidNotificationError('the Webhook-Signature header is missing');
  const parts = new Map(
    input.header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const time = parts.get('time');
  const sig = parts.get('sig1');
  if (!time || !/^\d{1,12}$/.test(time) || !sig || !/^[0-9a-f]{64}$/i.test(sig)) {
    throw new InvalidNotificationError('the Webhook-Signature header is malformed');
  }
  const age = Math.abs(input.now.getTime() / 1000 - Number(time));
  if (age > input.maxAgeSeconds) throw new InvalidNotificationError(`the notification is ${Math.round(age)} s old`);
  const expected = createHmac('sha256', input.secret).update(`${time}.`).update(input.rawBody).digest();
  if (!timingSafeEqual(expected, Buffer.from(sig, 'hex')))
    throw new InvalidNotificationError('the signature does not match');
}
