import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 22; // 128 random bits in base62

/** 128 random bits, base62: opaque, URL-safe, unguessable, and selectable with a double click. */
export function randomToken(bytes = 16): string {
  let n = BigInt(`0x${randomBytes(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  return out.padStart(length, '0');
}

export const ID_PREFIXES = { submission: 'sub_', upload: 'upl_' } as const;
export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + randomToken();
}

export function isId(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return (
    value.startsWith(prefix) &&
    /^[0-9A-Za-z]+$/.test(value.slice(prefix.length)) &&
    value.length === prefix.length + ID_LENGTH
  );
}
