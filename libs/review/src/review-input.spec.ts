import { describe, expect, it } from 'vitest';
import type { DomainError } from '@framedesk/domain';
import { decodeCursor, encodeCursor, parseDecision, parseQueueQuery, parseVisibility } from './review-input';
import { parseInternalNote } from './feedback-input';

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

  it('needs a reason to reject, and a note when the reason is Other', () => {
    expect(parseDecision({ decision: 'promote' })).toEqual({ decision: 'promote' });
    expect(parseDecision({ decision: 'reject', reason: 'Duplicate', note: '  ' })).toEqual({
      decision: 'reject',
      reason: 'Duplicate',
      note: null,
      regions: [],
    });
    expect(codeOf(() => parseDecision({ decision: 'reject' }))).toBe('validation_failed');
    expect(codeOf(() => parseDecision({ decision: 'reject', reason: '  ' }))).toBe('validation_failed');
    expect(codeOf(() => parseDecision({ decision: 'reject', reason: 'x'.repeat(101) }))).toBe('validation_failed');
    // Whether the reason is on the list is the channel's to say (channel-reasons.ts, checked by the service).
    expect(parseDecision({ decision: 'reject', reason: 'Because' })).toMatchObject({ reason: 'Because' });
    expect(codeOf(() => parseDecision({ decision: 'reject', reason: 'Other' }))).toBe('validation_failed');
    expect(codeOf(() => parseDecision({ decision: 'maybe' }))).toBe('validation_failed');
    // The note stays the agent's note: the reason is never folded into it.
    expect(parseDecision({ decision: 'reject', reason: 'Other', note: ' watermark ' })).toMatchObject({
      reason: 'Other',
      note: 'watermark',
    });
  });

  it('validates regions (fractions, a positive size, inside the image, a label, at most 20) and normalises them', () => {
    const reject = (regions: unknown) => parseDecision({ decision: 'reject', reason: 'Low quality', regions });
    expect(
      reject([
        { x: 0.123456, y: 0, width: 0.5, height: 1, label: '  logo cut off ', extra: 1 },
        { x: 0.5, y: 0.25, width: 0.5000000001, height: 0.25, label: 'blurry' },
      ]),
    ).toMatchObject({
      regions: [
        { x: 0.1235, y: 0, width: 0.5, height: 1, label: 'logo cut off' },
        { x: 0.5, y: 0.25, width: 0.5, height: 0.25, label: 'blurry' },
      ],
    });
    const box = { x: 0.1, y: 0.1, width: 0.2, height: 0.2, label: 'a' };
    const pointers = (regions: unknown) => {
      try {
        reject(regions);
      } catch (error) {
        return (error as DomainError).errors?.map((e) => e.pointer);
      }
      return null;
    };
    expect(pointers([{ ...box, x: -0.1 }])).toEqual(['/regions/0']);
    expect(pointers([{ ...box, y: 1.5 }])).toEqual(['/regions/0']);
    expect(pointers([{ ...box, width: 0 }])).toEqual(['/regions/0']);
    expect(pointers([{ ...box, x: 0.9, width: 0.2 }])).toEqual(['/regions/0']);
    expect(pointers([box, { ...box, label: '  ' }])).toEqual(['/regions/1/label']);
    expect(pointers([{ ...box, x: '0.1' }])).toEqual(['/regions/0']);
    expect(pointers(Array.from({ length: 21 }, () => box))).toEqual(['/regions']);
    expect(pointers('box')).toEqual(['/regions']);
    expect(reject(null)).toMatchObject({ regions: [] });
  });

  it('reads an internal note: 1 to 2000 characters', () => {
    expect(parseInternalNote({ body: '  second opinion please ' })).toBe('second opinion please');
    expect(codeOf(() => parseInternalNote({ body: ' ' }))).toBe('validation_failed');
    expect(codeOf(() => parseInternalNote({ body: 'x'.repeat(2001) }))).toBe('validation_failed');
  });

  it('accepts only the three visibilities', () => {
    expect(parseVisibility({ visibility: 'team_visible' })).toBe('team_visible');
    expect(codeOf(() => parseVisibility({ visibility: 'public' }))).toBe('validation_failed');
  });
});
