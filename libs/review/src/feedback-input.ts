// The feedback a rejection carries to its agent: regions (boxes on the original) and, on the
// reviewers' side, internal notes. Validated and normalised here, before anything is written.
import type { ReviewRegion } from '@framedesk/db';
import { DomainError, type FieldError } from '@framedesk/domain';

/** At most this many regions on one decision. */
export const MAX_REGIONS = 20;
/** A region's label: 1 to this many characters. */
export const MAX_REGION_LABEL = 200;
/** An internal note: 1 to this many characters. */
export const MAX_INTERNAL_NOTE = 2000;

// Fractions are kept to 4 decimals (a tenth of a pixel on a 1000-pixel side): enough for any
// variant size, and the same number whichever screen the box was drawn on.
const round = (n: number) => Math.round(n * 10_000) / 10_000;
const fraction = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 1;
// A box may reach the edge: drawn at screen size, x + width can exceed 1 by rounding only.
const EDGE_SLACK = 1e-6;

/**
 * `regions`: 0 to MAX_REGIONS boxes `{x, y, width, height, label}`, fractions (0–1) of the original
 * with the origin top left, a positive size, wholly inside the image, and a label. Normalised:
 * fractions rounded to 4 decimals (and kept inside the image), labels trimmed, nothing else kept.
 */
export function parseRegions(value: unknown, errors: FieldError[]): ReviewRegion[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_REGIONS) {
    errors.push({ pointer: '/regions', detail: `regions must be a list of at most ${MAX_REGIONS} boxes.` });
    return [];
  }
  const regions: ReviewRegion[] = [];
  value.forEach((raw: unknown, i) => {
    const pointer = `/regions/${i}`;
    const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const { x, y, width, height } = r;
    const label = typeof r['label'] === 'string' ? r['label'].trim() : '';
    if (!fraction(x) || !fraction(y) || !fraction(width) || !fraction(height)) {
      errors.push({ pointer, detail: 'A region has x, y, width and height as fractions from 0 to 1 of the image.' });
      return;
    }
    if (width <= 0 || height <= 0) {
      errors.push({ pointer, detail: 'A region has a positive width and height.' });
      return;
    }
    if (x + width > 1 + EDGE_SLACK || y + height > 1 + EDGE_SLACK) {
      errors.push({ pointer, detail: 'A region lies inside the image: x + width and y + height are at most 1.' });
      return;
    }
    if (label === '' || label.length > MAX_REGION_LABEL) {
      errors.push({
        pointer: `${pointer}/label`,
        detail: `A region has a label of 1 to ${MAX_REGION_LABEL} characters.`,
      });
      return;
    }
    const nx = round(x);
    const ny = round(y);
    const nw = Math.max(0.0001, Math.min(round(width), round(1 - nx)));
    const nh = Math.max(0.0001, Math.min(round(height), round(1 - ny)));
    regions.push({ x: nx, y: ny, width: nw, height: nh, label });
  });
  return regions;
}

/** The body of `POST /review/submissions/{id}/notes`: `{ body }`, 1 to MAX_INTERNAL_NOTE characters. */
export function parseInternalNote(body: unknown): string {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)['body'] : undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '' || text.length > MAX_INTERNAL_NOTE) {
    const detail = `An internal note has a body of 1 to ${MAX_INTERNAL_NOTE} characters.`;
    throw new DomainError('validation_failed', detail, { errors: [{ pointer: '/body', detail }] });
  }
  return text;
}
