import type { SubmissionStatus } from './status-machine';

/**
 * Retention (how long a final frame's media are kept after its last change), per channel and
 * final status. Frames still in the pipeline or waiting for review are never purged.
 */
export const RETAINED_STATUSES = ['rejected', 'failed', 'promoted'] as const satisfies readonly SubmissionStatus[];
export type RetainedStatus = (typeof RETAINED_STATUSES)[number];

/** `never`, or whole days (`0d` purges at the next run). */
export type RetentionPeriod = { readonly days: number } | 'never';

/** The written form: `30d`, `0d` or `never` (settings, the CLI, the channels table). */
export const RETENTION_PATTERN = '^(never|[0-9]{1,5}d)$';
const PATTERN = new RegExp(RETENTION_PATTERN);

export function isRetention(value: string): boolean {
  return PATTERN.test(value);
}

/** Parses `30d` / `never`; null for anything else. */
export function parseRetention(value: string): RetentionPeriod | null {
  if (!PATTERN.test(value)) return null;
  return value === 'never' ? 'never' : { days: Number(value.slice(0, -1)) };
}

export function formatRetention(period: RetentionPeriod): string {
  return period === 'never' ? 'never' : `${period.days}d`;
}

/** Frames whose last change is before this are past their retention; null when kept forever. */
export function retentionCutoff(period: RetentionPeriod, now: Date): Date | null {
  return period === 'never' ? null : new Date(now.getTime() - period.days * 86_400_000);
}
