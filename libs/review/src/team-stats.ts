// The Team view's numbers (GET /review/team, admins only): per reviewer over a window of days.
import type { ReviewTeamMember, ReviewTeamStats } from '@framedesk/contracts';
import type { Database, TeamStatsRow } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { assertAdmin, type Reviewer } from './review/context';

const DAY_MS = 86_400_000;
/** The window when none is asked for: the last 30 days. */
export const TEAM_DEFAULT_DAYS = 30;
/** The longest window one request may ask for. */
export const TEAM_MAX_DAYS = 366;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
// A timestamp names its zone (Z or ±hh:mm) so that it means one instant.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

type Errors = { pointer: string; detail: string }[];

/**
 * An ISO 8601 date (a whole UTC day) or timestamp. A date as `until` includes that day: the window
 * ends at the next midnight UTC.
 */
function instantOf(name: 'since' | 'until', value: unknown, errors: Errors): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const text = typeof value === 'string' ? value : '';
  const dateOnly = DATE_ONLY.test(text);
  const at = dateOnly || TIMESTAMP.test(text) ? new Date(dateOnly ? `${text}T00:00:00Z` : text) : null;
  if (!at || Number.isNaN(at.getTime()) || (dateOnly && at.toISOString().slice(0, 10) !== text)) {
    errors.push({
      pointer: `/${name}`,
      detail: `${name} is an ISO 8601 date (2026-11-01) or timestamp with its zone (2026-11-01T09:00:00Z).`,
    });
    return undefined;
  }
  return dateOnly && name === 'until' ? new Date(at.getTime() + DAY_MS) : at;
}

/** The window of `?since=&until=`: by default the 30 days before now; at most TEAM_MAX_DAYS long. */
export function parseTeamWindow(query: Record<string, unknown>, now: Date): { since: Date; until: Date } {
  const errors: Errors = [];
  const since = instantOf('since', query['since'], errors);
  const until = instantOf('until', query['until'], errors) ?? now;
  if (errors.length === 0) {
    const from = since ?? new Date(until.getTime() - TEAM_DEFAULT_DAYS * DAY_MS);
    if (from >= until) errors.push({ pointer: '/since', detail: 'since must be before until.' });
    else if (until.getTime() - from.getTime() > TEAM_MAX_DAYS * DAY_MS)
      errors.push({ pointer: '/since', detail: `A window is at most ${TEAM_MAX_DAYS} days long.` });
    else return { since: from, until };
  }
  throw new DomainError('validation_failed', errors.map((e) => e.detail).join(' '), { errors });
}

function memberView(row: TeamStatsRow): ReviewTeamMember {
  return {
    reviewer_id: row.reviewerId,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabled,
    decisions: row.decisions,
    promoted: row.promoted,
    rejected: row.rejected,
    median_seconds_per_decision: row.medianSeconds === null ? null : Math.round(row.medianSeconds * 10) / 10,
    timed_decisions: row.timed,
    promoted_then_rejected: row.promotedThenRejected,
    policy_agreement: { agreed: row.agreed, total: row.sampled },
  };
}

/** `GET /review/team`: reads the numbers for an admin; anyone else gets a 403. */
export function teamStats(deps: { db: Database; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    async read(query: Record<string, unknown>, me: Reviewer): Promise<ReviewTeamStats> {
      assertAdmin(me);
      const window = parseTeamWindow(query, now());
      // A window of past days: a replica's view (a moment stale at most) serves it (docs/operations.md).
      const rows = await deps.db.readRepos().teamStats.perReviewer(window);
      return { since: window.since.toISOString(), until: window.until.toISOString(), reviewers: rows.map(memberView) };
    },
  };
}

export type TeamStats = ReturnType<typeof teamStats>;
