/** Shared value rules (DESIGN.md §4): slugs, frame dates, visibility. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const SLUG_MAX_LENGTH = 64;
const SLUG_RE = new RegExp(SLUG_PATTERN);

export function isSlug(value: string): boolean {
  return value.length <= SLUG_MAX_LENGTH && SLUG_RE.test(value);
}

/** `YYYYMMDD` that names a real calendar day. */
export function isFrameDate(value: string): boolean {
  if (!/^\d{8}$/.test(value)) return false;
  const [y, m, d] = [Number(value.slice(0, 4)), Number(value.slice(4, 6)), Number(value.slice(6, 8))];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

export function frameDateOf(instant: Date): string {
  return instant.toISOString().slice(0, 10).replaceAll('-', '');
}

export const VISIBILITIES = ['draft', 'team_visible', 'promotion_eligible'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const MEDIA_TYPES = ['image', 'video'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** admin: every channel, ops, retries and people; reviewer: only the channels they are a member of. */
export const REVIEWER_ROLES = ['admin', 'reviewer'] as const;
export type ReviewerRole = (typeof REVIEWER_ROLES)[number];

export function isReviewerRole(value: unknown): value is ReviewerRole {
  return value === 'admin' || value === 'reviewer';
}
