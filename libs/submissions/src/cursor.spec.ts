import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor';

describe('list cursors', () => {
  it('round-trip (created_at, id) opaquely', () => {
    const position = { createdAt: new Date('2026-11-22T03:04:05.678Z'), id: `sub_${'A'.repeat(22)}` };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
  });

  it('refuse cursors we did not issue with invalid_request', () => {
    for (const bad of [
      '',
      '!!',
      Buffer.from('nope').toString('base64url'),
      Buffer.from('2026-01-01T00:00:00Z|x').toString('base64url'),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    }
  });
});
