import { DUPLICATE_OF_EARLIER_FRAME, REJECT_REASONS, type RejectReason } from '@framedesk/contracts';
import type { ReviewMoment, ReviewRegion } from '@framedesk/db';
import { parseRegions } from './feedback-input';
import { parseMoments } from './moment-input';
import {
  DomainError,
  FAILURE_CODES,
  type FieldError,
  isFrameDate,
  isId,
  isSlug,
  MEDIA_TYPES,
  type MediaType,
  VISIBILITIES,
  type Visibility,
} from '@framedesk/domain';

export { REJECT_REASONS, type RejectReason };

export interface QueueQuery {
  readonly channel?: string;
  readonly agent?: string;
  readonly mediaType?: MediaType;
  readonly dateFrom?: string;
  readonly dateTo?: string;
  readonly cursor?: {
    readonly createdAt: Date;
    readonly id: string;
    readonly dueAt?: Date | null;
    readonly priority?: number;
  };
  readonly limit: number;
}

export type Decision =
  | { readonly decision: 'promote' }
  | {
      readonly decision: 'reject';
      /** One of the channel's reject reasons (checked by the review service). */
      readonly reason: string;
      /** The note to the agent (its `review.note`), kept apart from the reason. */
      readonly note: string | null;
      /** Boxes on the original the rejection points at (normalised; empty when none). */
      readonly regions: readonly ReviewRegion[];
      /** A video's time-coded items (empty when none; times checked against the video by the service). */
      readonly moments?: readonly ReviewMoment[];
      /** The earlier frame this one duplicates (reason "Duplicate of an earlier frame" only). */
      readonly duplicateOf?: string;
    };

const fail = (errors: FieldError[]) => {
  if (errors.length > 0) throw new DomainError('validation_failed', errors.map((e) => e.detail).join(' '), { errors });
};

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export function encodeCursor(value: Record<string, string>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

// What each cursor field must hold: a cursor that decodes to anything else was not issued by us.
const CURSOR_FIELDS: Record<string, (v: string) => boolean> = {
  c: (v) => !Number.isNaN(Date.parse(v)),
  r: (v) => !Number.isNaN(Date.parse(v)),
  d: (v) => isFrameDate(v),
  i: (v) => /^sub_[0-9A-Za-z]{1,64}$/.test(v),
};

export function decodeCursor(cursor: string, fields: readonly string[]): Record<string, string> {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const valid = (f: string) => typeof value[f] === 'string' && (CURSOR_FIELDS[f]?.(value[f]) ?? true);
    if (value && typeof value === 'object' && fields.every(valid)) return value as Record<string, string>;
  } catch {
    // fall through
  }
  throw new DomainError('invalid_request', 'The cursor is not valid; pass next_cursor unchanged.', {
    errors: [{ pointer: '/cursor', detail: 'not a cursor this API issued' }],
  });
}

/** A queue position: created_at and id, and the due time and priority the queue sorts by first. */
function queueCursor(cursor: Record<string, string>) {
  const due = cursor['u'] ? new Date(cursor['u']) : null;
  const priority = Number(cursor['p'] ?? 0);
  return {
    createdAt: new Date(cursor['c']!),
    id: cursor['i']!,
    dueAt: due && !Number.isNaN(due.getTime()) ? due : null,
    priority: [1, 0, -1].includes(priority) ? priority : 0,
  };
}

/** Queue filters from the query string (the workbench keeps them in its URL). */
export function parseQueueQuery(query: Record<string, unknown>): QueueQuery {
  const errors: FieldError[] = [];
  const channel = str(query['channel']);
  const agent = str(query['agent']);
  const mediaType = str(query['media_type']);
  const dateFrom = str(query['date_from']);
  const dateTo = str(query['date_to']);
  const limitText = str(query['limit']);
  if (channel && !isSlug(channel)) errors.push({ pointer: '/channel', detail: 'channel must be a slug.' });
  if (agent && !isSlug(agent)) errors.push({ pointer: '/agent', detail: 'agent must be a slug.' });
  if (mediaType && !(MEDIA_TYPES as readonly string[]).includes(mediaType))
    errors.push({ pointer: '/media_type', detail: 'media_type must be image or video.' });
  if (dateFrom && !isFrameDate(dateFrom))
    errors.push({ pointer: '/date_from', detail: 'date_from must be a YYYYMMDD date.' });
  if (dateTo && !isFrameDate(dateTo)) errors.push({ pointer: '/date_to', detail: 'date_to must be a YYYYMMDD date.' });
  const limit = limitText === undefined ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    errors.push({ pointer: '/limit', detail: 'limit must be an integer from 1 to 200.' });
  fail(errors);
  const cursorText = str(query['cursor']);
  const cursor = cursorText ? decodeCursor(cursorText, ['c', 'i']) : undefined;
  return {
    ...(channel ? { channel } : {}),
    ...(agent ? { agent } : {}),
    ...(mediaType ? { mediaType: mediaType as MediaType } : {}),
    ...(dateFrom ? { dateFrom } : {}),
    ...(dateTo ? { dateTo } : {}),
    ...(cursor ? { cursor: queueCursor(cursor) } : {}),
    limit,
  };
}

export function parseDecision(body: unknown): Decision {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (b['decision'] === 'promote') return { decision: 'promote' };
  if (b['decision'] !== 'reject') {
    fail([{ pointer: '/decision', detail: 'decision must be "promote" or "reject".' }]);
  }
  const reason = b['reason'];
  const note = typeof b['note'] === 'string' ? b['note'].trim() : '';
  // Which reasons are allowed is the channel's (channel-reasons.ts): the service checks the list.
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 100) {
    errors.push({ pointer: '/reason', detail: "A rejection needs a reason: one of the channel's reject reasons." });
  }
  if (reason === 'Other' && note === '')
    errors.push({ pointer: '/note', detail: 'Say why in the note when the reason is Other.' });
  if (note.length > 1000) errors.push({ pointer: '/note', detail: 'The note has at most 1000 characters.' });
  const duplicateOf = parseDuplicateOf(reason, b['duplicate_of'], errors);
  const regions = parseRegions(b['regions'], errors);
  const moments = parseMoments(b['moments'], errors);
  fail(errors);
  return {
    decision: 'reject',
    reason: reason as string,
    note: note === '' ? null : note,
    regions,
    ...(moments.length > 0 ? { moments } : {}),
    ...(duplicateOf ? { duplicateOf } : {}),
  };
}

export function parseVisibility(body: unknown): Visibility {
  const value = (
    body && typeof body === 'object' ? (body as Record<string, unknown>)['visibility'] : undefined
  ) as unknown;
  if (typeof value !== 'string' || !(VISIBILITIES as readonly string[]).includes(value)) {
    throw new DomainError('validation_failed', `visibility must be one of ${VISIBILITIES.join(', ')}.`, {
      errors: [{ pointer: '/visibility', detail: `one of ${VISIBILITIES.join(', ')}` }],
    });
  }
  return value as Visibility;
}

export interface FailedFilter {
  readonly failureCode?: string;
  readonly channelSlug?: string;
}

/** `failure_code` and `channel` of the ops page's failed list. */
export function parseFailedFilter(query: Record<string, unknown>): FailedFilter {
  const code = str(query['failure_code']);
  const channel = str(query['channel']);
  const errors: FieldError[] = [];
  if (code && !(FAILURE_CODES as readonly string[]).includes(code))
    errors.push({ pointer: '/failure_code', detail: `failure_code must be one of ${FAILURE_CODES.join(', ')}.` });
  if (channel && !isSlug(channel)) errors.push({ pointer: '/channel', detail: 'channel must be a slug.' });
  fail(errors);
  return { ...(code ? { failureCode: code } : {}), ...(channel ? { channelSlug: channel } : {}) };
}

/** Page size of the timeline: `limit` from 1 to 100, 100 by default. */
export function parseTimelineLimit(query: Record<string, unknown>): number {
  const text = str(query['limit']);
  const limit = text === undefined ? 100 : Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    fail([{ pointer: '/limit', detail: 'limit must be an integer from 1 to 100.' }]);
  return limit;
}

/** At most this many frames in one batch decision. */
export const MAX_BATCH = 100;

export interface BatchDecision {
  readonly ids: readonly string[];
  readonly decision: Decision;
}

/** `{ ids: [...], decision, reason?, note? }`: one decision (and one reason) for several frames. */
export function parseBatchDecision(body: unknown, isSubmissionId: (id: string) => boolean): BatchDecision {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const ids = b['ids'];
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > MAX_BATCH ||
    !ids.every((id): id is string => typeof id === 'string' && isSubmissionId(id))
  ) {
    fail([{ pointer: '/ids', detail: `ids must list 1 to ${MAX_BATCH} submission ids.` }]);
  }
  return { ids: [...new Set(ids as string[])], decision: parseDecision(b) };
}

/** `duplicate_of` goes with, and only with, the reason "Duplicate of an earlier frame". */
function parseDuplicateOf(reason: unknown, value: unknown, errors: FieldError[]): string | undefined {
  if (reason !== DUPLICATE_OF_EARLIER_FRAME) {
    if (value !== undefined && value !== null)
      errors.push({
        pointer: '/duplicate_of',
        detail: `duplicate_of goes with the reason ${DUPLICATE_OF_EARLIER_FRAME}.`,
      });
    return undefined;
  }
  if (typeof value !== 'string' || !isId('submission', value)) {
    errors.push({ pointer: '/duplicate_of', detail: 'Name the earlier frame this one duplicates (duplicate_of).' });
    return undefined;
  }
  return value;
}
