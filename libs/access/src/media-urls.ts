import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Short-lived signed media URLs: `/media/<submission>/<name>?expires=<unix>&signature=<hex>`,
 * HMAC-SHA256 over submission, name and expiry with the session secret. Anyone holding the URL
 * may fetch the object until it expires; nobody can forge or extend one.
 */
export interface MediaUrlInput {
  readonly submissionId: string;
  readonly name: string;
  /**
   * The reviewer a workbench link was issued to (`&viewer=`, signed too): the API serves it only
   * while that reviewer may still see the frame, so a removed membership ends the link at once.
   */
  readonly viewer?: string | undefined;
}

const signatureOf = (secret: string, input: MediaUrlInput, expires: number) =>
  createHmac('sha256', secret)
    .update(`media\n${input.submissionId}\n${input.name}\n${expires}${input.viewer ? `\n${input.viewer}` : ''}`)
    .digest('hex');

/**
 * The longest lifetime a media URL is issued with (the workbench's hour-aligned URLs reach two
 * hours ahead). A URL claiming to expire later was not issued by us, even with a leaked secret's
 * help, and is refused.
 */
export const MEDIA_URL_MAX_LIFETIME_MS = 2 * 3600_000;

/** The URL path and query (append it to the public base address). */
export function signMediaUrl(secret: string, input: MediaUrlInput, expiresAt: Date, now = new Date()): string {
  if (expiresAt.getTime() - now.getTime() > MEDIA_URL_MAX_LIFETIME_MS)
    throw new RangeError('A media URL may live at most MEDIA_URL_MAX_LIFETIME_MS.');
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const signature = signatureOf(secret, input, expires);
  const viewer = input.viewer ? `&viewer=${encodeURIComponent(input.viewer)}` : '';
  return `/media/${encodeURIComponent(input.submissionId)}/${encodeURIComponent(input.name)}?expires=${expires}${viewer}&signature=${signature}`;
}

/** True when `signature` is ours for this object and `expires` is ahead of `now`, but not too far. */
export function verifyMediaUrl(
  secret: string,
  input: MediaUrlInput & { readonly expires: string | undefined; readonly signature: string | undefined },
  now = new Date(),
): boolean {
  if (
    !input.expires ||
    !/^\d{1,12}$/.test(input.expires) ||
    !input.signature ||
    !/^[0-9a-f]{64}$/.test(input.signature)
  )
    return false;
  const expires = Number(input.expires);
  if (expires * 1000 <= now.getTime() || expires * 1000 > now.getTime() + MEDIA_URL_MAX_LIFETIME_MS) return false;
  const expected = Buffer.from(signatureOf(secret, input, expires), 'hex');
  return timingSafeEqual(expected, Buffer.from(input.signature, 'hex'));
}
