import { describe, expect, it } from 'vitest';
import { frameDateOf, isFrameDate, isSlug } from './values';
import { isId, newId, randomToken } from './ids';
import { DomainError, ERROR_CATALOG } from './errors';

describe('values', () => {
  it('accepts only real calendar dates', () => {
    expect(isFrameDate('20240229')).toBe(true);
    expect(isFrameDate('20230229')).toBe(false);
    expect(isFrameDate('20241301')).toBe(false);
    expect(isFrameDate('2024-01-01')).toBe(false);
    expect(frameDateOf(new Date('2026-11-22T23:59:59Z'))).toBe('20261122');
  });

  it('accepts lowercase dash-separated slugs up to 64 characters', () => {
    expect(isSlug('news-daily')).toBe(true);
    expect(isSlug('News')).toBe(false);
    expect(isSlug('a--b')).toBe(false);
    expect(isSlug('-a')).toBe(false);
    expect(isSlug('ä')).toBe(false);
    expect(isSlug('a'.repeat(64))).toBe(true);
    expect(isSlug('a'.repeat(65))).toBe(false);
  });
});

describe('ids', () => {
  it('makes prefixed, URL-safe ids of 128 random bits', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('submission')));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(isId('submission', id)).toBe(true);
    expect(isId('upload', newId('submission'))).toBe(false);
    expect(randomToken(24)).toMatch(/^[0-9A-Za-z]{33}$/);
  });
});

describe('errors', () => {
  it('takes status and title from the one catalog', () => {
    const error = new DomainError('unsupported_media_type', 'video parts are not accepted');
    expect(error.status).toBe(415);
    expect(error.title).toBe(ERROR_CATALOG.unsupported_media_type.title);
  });
});
