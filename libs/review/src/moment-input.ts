// A video's time-coded feedback (docs/video.md, "Feedback pinned to a moment"): checked for shape
// when the body is parsed, and against the video's duration once the frame is read.
import type { ReviewMoment } from '@framedesk/db';
import { DomainError, type FieldError } from '@framedesk/domain';
import { MAX_REGION_LABEL } from './feedback-input';

/** At most this many time-coded items on one decision or internal note. */
export const MAX_MOMENTS = 20;

// Times are kept to the millisecond; fractions to 4 decimals, as regions are.
const ms = (n: number) => Math.round(n * 1000) / 1000;
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
const seconds = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
const fraction = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 1;

function parseRegion(raw: unknown, pointer: string, errors: FieldError[]): ReviewMoment['region'] | null {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const { x, y, width, height } = r;
  if (!fraction(x) || !fraction(y) || !fraction(width) || !fraction(height) || width <= 0 || height <= 0) {
    errors.push({ pointer, detail: 'A region has x, y, width and height as fractions from 0 to 1, with a size.' });
    return null;
  }
  if (x + width > 1 + 1e-6 || y + height > 1 + 1e-6) {
    errors.push({ pointer, detail: 'A region lies inside the frame: x + width and y + height are at most 1.' });
    return null;
  }
  const nx = round4(x);
  const ny = round4(y);
  return {
    x: nx,
    y: ny,
    width: Math.max(0.0001, Math.min(round4(width), round4(1 - nx))),
    height: Math.max(0.0001, Math.min(round4(height), round4(1 - ny))),
  };
}

function parseMoment(raw: unknown, pointer: string, errors: FieldError[]): ReviewMoment | null {
  const m = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const label = typeof m['label'] === 'string' ? m['label'].trim() : '';
  const before = errors.length;
  if (label === '' || label.length > MAX_REGION_LABEL)
    errors.push({ pointer: `${pointer}/label`, detail: `An item has a label of 1 to ${MAX_REGION_LABEL} characters.` });
  const region = m['region'] === undefined ? undefined : parseRegion(m['region'], `${pointer}/region`, errors);
  let time: { at: number } | { start: number; end: number } | null = null;
  if (m['at'] !== undefined) {
    if (m['start'] !== undefined || m['end'] !== undefined)
      errors.push({ pointer, detail: 'An item has either a time (at) or a range (start, end), not both.' });
    else if (!seconds(m['at'])) errors.push({ pointer: `${pointer}/at`, detail: 'at is seconds, 0 or more.' });
    else time = { at: ms(m['at']) };
  } else if (!seconds(m['start'])) {
    errors.push({ pointer: `${pointer}/start`, detail: 'An item has a time (at) or a range (start, end) in seconds.' });
  } else if (!seconds(m['end'])) {
    errors.push({ pointer: `${pointer}/end`, detail: 'end is seconds, 0 or more.' });
  } else if (m['end'] < m['start']) {
    errors.push({ pointer: `${pointer}/end`, detail: 'end is not before start.' });
  } else time = { start: ms(m['start']), end: ms(m['end']) };
  if (errors.length > before || !time) return null;
  return { ...time, label, ...(region ? { region } : {}) };
}

/**
 * `moments`: 0 to MAX_MOMENTS items `{at | start, end, region?, label}`, seconds from the video's
 * start; region as fractions (0–1) of the frame. Normalised: times to the millisecond, fractions
 * to 4 decimals, labels trimmed, nothing else kept. Whether the times fall inside the video is
 * `assertMomentsWithin`'s, once the frame is read.
 */
export function parseMoments(value: unknown, errors: FieldError[]): ReviewMoment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_MOMENTS) {
    errors.push({ pointer: '/moments', detail: `moments must be a list of at most ${MAX_MOMENTS} items.` });
    return [];
  }
  return value.flatMap((raw: unknown, i) => parseMoment(raw, `/moments/${i}`, errors) ?? []);
}

/**
 * Time-coded items are for a video, within its duration (422 validation_failed naming the
 * field otherwise). `durationMs` null: a video whose duration is not known takes any time.
 */
export function assertMomentsWithin(
  moments: readonly ReviewMoment[],
  frame: { readonly mediaType: string; readonly durationMs: number | null },
): void {
  if (moments.length === 0) return;
  if (frame.mediaType !== 'video') {
    const detail = 'Time-coded items (moments) are for videos; use regions on an image.';
    throw new DomainError('validation_failed', detail, { errors: [{ pointer: '/moments', detail }] });
  }
  if (frame.durationMs === null) return;
  const duration = frame.durationMs / 1000;
  const errors: FieldError[] = [];
  moments.forEach((m, i) => {
    const last = 'at' in m ? { field: 'at', value: m.at } : { field: 'end', value: m.end };
    if (last.value > duration + 0.001)
      errors.push({
        pointer: `/moments/${i}/${last.field}`,
        detail: `${last.field} is within the video: at most ${duration.toFixed(3)} s.`,
      });
  });
  if (errors.length > 0) throw new DomainError('validation_failed', errors.map((e) => e.detail).join(' '), { errors });
}

/** The `moments` of `POST /review/submissions/{id}/notes` (422 naming the item when malformed). */
export function parseNoteMoments(body: unknown): ReviewMoment[] {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)['moments'] : undefined;
  const errors: FieldError[] = [];
  const moments = parseMoments(value, errors);
  if (errors.length > 0) throw new DomainError('validation_failed', errors.map((e) => e.detail).join(' '), { errors });
  return moments;
}
