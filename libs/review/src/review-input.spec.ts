import { describe, expect, it } from 'vitest';
import type { DomainError } from '@framedesk/domain';
import {
  decodeCursor,
  encodeCursor,
  parseDecision,
  parseQueueQuery,
  parseVisibility,
  reasonText,
} from './review-input';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as DomainError).code;
  }
  return null;
};

describe('review input', () => {
  it('reads queue filters and a cursor, refusing malformed ones with every problem listed', () => {
    const cursor = encodeCursor({ c: '2026-01-01T00:00:00.000Z', i: 'sub_x' });
    expect(
      parseQueueQuery({
        channel: 'news',
        agent: 'bot',
        media_type: 'video',
        date_from: '20260101',
        date_to: '20260131',
        limit: '10',
        cursor,
      }),
    ).toEqual({
      channel: 'news',
      agent: 'bot',
      mediaType: 'video',
      dateFrom: '20260101',
      dateTo: '20260131',
      cursor: { createdAt: new Date('2026-01-01T00:00:00.000Z'), id: 'sub_x', dueAt: null, priority: 0 },
      limit: 10,
    });
    expect(parseQueueQuery({})).toEqual({ limit: 50 });
    try {
      parseQueueQuery({ channel: 'Not A Slug', media_type: 'gif', date_from: '20260230', limit: '0' });
      expect.unreachable();
    } catch (error) {
      expect((error as DomainError).errors?.map((e) => e.pointer)).toEqual([
        '/channel',
        '/media_type',
        '/date_from',
        '/limit',
      ]);
    }
    expect(codeOf(() => decodeCursor('garbage', ['c']))).toBe('invalid_request');
    // Decodes, but to values no cursor of ours holds: refused (400), never passed on to the query.
    expect(codeOf(() => decodeCursor(encodeCursor({ c: 'not a date', i: 'sub_x' }), ['c', 'i']))).toBe(
      'invalid_request',
    );
  });

  it('needs a listed reason to reject, and a note when the reason is Other', () => {
    expect(parseDecision({ decision: 'promote' })).toEqual({ decision: 'promote' });
    expect(parseDecision({ decision: 'reject', reason: 'Duplicate', note: '  ' })).toEqual({
      decision: 'reject',
      reason: 'Duplicate',
      note: null,
    });
    expect(codeOf(() => parseDecision({ decision: 'reject' }))).toBe('validation_failed');
    expect(codeOf(() => parseDecision({ decision: 'reject', reason: 'Because' }))).toBe('validation_failed');
    expect(codeOf(() => parseDecision({ decision: 'reject', reason: 'Other' }))).toBe('validation_failed');
    expect(codeOf(() => parseDecision({ decision: 'maybe' }))).toBe('validation_failed');
    expect(reasonText({ decision: 'reject', reason: 'Other', note: 'watermark' })).toBe('Other: watermark');
  });

  it('accepts only the three visibilities', () => {
    expect(parseVisibility({ visibility: 'team_visible' })).toBe('team_visible');
    expect(codeOf(() => parseVisibility({ visibility: 'public' }))).toBe('validation_failed');
  });
});
