import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { MEDIA_URL_MAX_LIFETIME_MS, signMediaUrl, verifyMediaUrl } from './media-urls';

const secret = 'a-secret-of-sixteen-chars';
const input = { submissionId: 'sub_abc', name: 'thumbnail' };

function parse(url: string) {
  const u = new URL(url, 'http://x');
  return {
    expires: u.searchParams.get('expires') ?? undefined,
    signature: u.searchParams.get('signature') ?? undefined,
    path: u.pathname,
  };
}

describe('signed media URLs', () => {
  it('verify for the signed object until they expire', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    const url = signMediaUrl(secret, input, new Date(now.getTime() + 60_000));
    const q = parse(url);
    expect(q.path).toBe('/media/sub_abc/thumbnail');
    expect(verifyMediaUrl(secret, { ...input, ...q }, now)).toBe(true);
    expect(verifyMediaUrl(secret, { ...input, ...q }, new Date(now.getTime() + 61_000))).toBe(false);
  });

  it('refuse another object, another secret, a changed expiry or garbage', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    const q = parse(signMediaUrl(secret, input, new Date(now.getTime() + 60_000)));
    expect(verifyMediaUrl(secret, { ...input, name: 'public', ...q }, now)).toBe(false);
    expect(verifyMediaUrl('another-secret-sixteen', { ...input, ...q }, now)).toBe(false);
    expect(verifyMediaUrl(secret, { ...input, ...q, expires: String(Number(q.expires) + 1) }, now)).toBe(false);
    expect(verifyMediaUrl(secret, { ...input, expires: q.expires, signature: 'zz' }, now)).toBe(false);
    expect(verifyMediaUrl(secret, { ...input, expires: undefined, signature: undefined }, now)).toBe(false);
  });

  it('refuse an expiry further ahead than the longest lifetime issued, even correctly signed', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    const far = Math.floor(now.getTime() / 1000) + 365 * 86400;
    const signature = createHmac('sha256', secret)
      .update(`media\n${input.submissionId}\n${input.name}\n${far}`)
      .digest('hex');
    expect(verifyMediaUrl(secret, { ...input, expires: String(far), signature }, now)).toBe(false);
    const longest = new Date(now.getTime() + MEDIA_URL_MAX_LIFETIME_MS);
    expect(verifyMediaUrl(secret, { ...input, ...parse(signMediaUrl(secret, input, longest, now)) }, now)).toBe(true);
    expect(() => signMediaUrl(secret, input, new Date(longest.getTime() + 1000), now)).toThrow(RangeError);
  });

  it('bind a workbench link to its viewer: another viewer, or none, does not verify', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    const url = new URL(
      signMediaUrl(secret, { ...input, viewer: 'rev-1' }, new Date(now.getTime() + 60_000)),
      'http://x',
    );
    const q = {
      expires: url.searchParams.get('expires') ?? undefined,
      signature: url.searchParams.get('signature') ?? undefined,
    };
    expect(url.searchParams.get('viewer')).toBe('rev-1');
    expect(verifyMediaUrl(secret, { ...input, viewer: 'rev-1', ...q }, now)).toBe(true);
    expect(verifyMediaUrl(secret, { ...input, viewer: 'rev-2', ...q }, now)).toBe(false);
    expect(verifyMediaUrl(secret, { ...input, ...q }, now)).toBe(false);
  });
});
