// Option values shared by commands: durations, dates, sizes.
import { UsageError } from '../command';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `24h`, `7d`, `0s`… in milliseconds. */
export function durationArg(value: string, option: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(value);
  if (!match) throw new UsageError(`${option} "${value}" is not a duration such as 30m, 24h or 7d`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

/** `2026-01-31` (midnight UTC) or a full ISO 8601 time. */
export function dateArg(value: string, option: string): Date {
  const date = new Date(/^\d{4}-\d\d-\d\d$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(date.getTime()))
    throw new UsageError(`${option} "${value}" is not a date such as 2026-01-31 or 2026-01-31T12:00:00Z`);
  return date;
}

export function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KB`;
}
