// GET /v1/agents/{agent_slug}/feedback: what an agent can learn from its decisions, in one poll.
import {
  API_SUBMISSION_STATUSES,
  type AgentFeedback,
  decidedBy,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
} from '@framedesk/contracts';
import type { AgentRejectionRow, Database } from '@framedesk/db';
import { DomainError, type FieldError } from '@framedesk/domain';
import { decodeCursor, encodeCursor } from './cursor';
import type { ReviewMomentJson, ReviewRegionJson } from '@framedesk/contracts';

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_MS = 30 * DAY_MS;
/**
 * How far back `since` may reach (the CLI's and simulate's `--since` rule): the record reads the
 * window's frames from an index, so its cost is bounded by this window, never by the whole history.
 */
export const FEEDBACK_SINCE_MAX_DAYS = 365;
const TOP_REASONS = 10;

export interface FeedbackQuery {
  readonly since: Date;
  readonly cursor?: { readonly reviewedAt: Date; readonly id: string };
  readonly limit: number;
}

/** `since` (an ISO 8601 date or timestamp; 30 days ago by default, at most FEEDBACK_SINCE_MAX_DAYS ago), `cursor`, `limit`. */
export function parseFeedbackQuery(query: Record<string, unknown>, now: Date): FeedbackQuery {
  const errors: FieldError[] = [];
  for (const name of Object.keys(query))
    if (!['since', 'cursor', 'limit'].includes(name))
      errors.push({ pointer: `/query/${name}`, detail: 'is not a known parameter' });
  const text = (name: string) => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    errors.push({ pointer: `/query/${name}`, detail: 'must be given once' });
    return undefined;
  };
  const sinceText = text('since');
  const since = sinceText === undefined ? new Date(now.getTime() - DEFAULT_WINDOW_MS) : isoDate(sinceText);
  if (!since) errors.push({ pointer: '/query/since', detail: 'since must be an ISO 8601 date or timestamp.' });
  else if (since.getTime() < now.getTime() - FEEDBACK_SINCE_MAX_DAYS * DAY_MS)
    errors.push({
      pointer: '/query/since',
      detail: `since may be at most ${FEEDBACK_SINCE_MAX_DAYS} days ago (${new Date(now.getTime() - FEEDBACK_SINCE_MAX_DAYS * DAY_MS).toISOString()}).`,
    });
  const limitText = text('limit');
  const limit = limitText === undefined ? LIST_LIMIT_DEFAULT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX)
    errors.push({ pointer: '/query/limit', detail: `limit must be an integer from 1 to ${LIST_LIMIT_MAX}.` });
  if (errors.length > 0)
    throw new DomainError('validation_failed', errors.map((e) => `${e.pointer}: ${e.detail}`).join(' '), { errors });
  const cursorText = text('cursor');
  const cursor = cursorText ? decodeCursor(cursorText) : undefined;
  return {
    since: since!,
    limit,
    ...(cursor ? { cursor: { reviewedAt: cursor.createdAt, id: cursor.id } } : {}),
  };
}

/** `2026-11-01` (midnight UTC) or a full ISO 8601 timestamp with a zone. */
function isoDate(value: string): Date | null {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? new Date(`${value}T00:00:00.000Z`)
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
      ? new Date(value)
      : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

const share = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

function rejectionView(r: AgentRejectionRow): AgentFeedback['rejections'][number] {
  return {
    id: r.id,
    channel_slug: r.channelSlug,
    title: r.title,
    created_at: r.createdAt.toISOString(),
    decided_at: r.reviewedAt.toISOString(),
    decided_by: decidedBy(r),
    rule: r.reviewRule,
    reason: r.reviewReason,
    note: r.reviewNote,
    regions: Array.isArray(r.reviewRegions) ? (r.reviewRegions as ReviewRegionJson[]) : [],
    moments: Array.isArray(r.reviewMoments) ? (r.reviewMoments as ReviewMomentJson[]) : [],
    revision_of: r.revisionOf,
  };
}

/** The key's own agent only: any other slug reads as missing (404). */
export async function agentFeedback(
  db: Database,
  caller: { agentId: string; agentSlug: string },
  slug: string,
  query: Record<string, unknown>,
  now: Date = new Date(),
): Promise<AgentFeedback> {
  if (slug !== caller.agentSlug) throw new DomainError('not_found', `No agent ${slug}.`);
  const q = parseFeedbackQuery(query, now);
  // Decided frames, which a moment's staleness does not change: a replica's while one keeps up.
  const repo = db.readRepos().agentFeedback;
  // One read after another: a call holds one pool connection at a time, however many run.
  const counts = await repo.countsByStatus(caller.agentId, q.since);
  const reasons = await repo.topReasons(caller.agentId, q.since, TOP_REASONS);
  const median = await repo.medianSecondsToDecision(caller.agentId, q.since);
  const rows = await repo.rejections({
    agentId: caller.agentId,
    since: q.since,
    ...(q.cursor ? { after: q.cursor } : {}),
    limit: q.limit + 1,
  });
  const byStatus = Object.fromEntries(API_SUBMISSION_STATUSES.map((s) => [s, counts.get(s) ?? 0]));
  const promoted = byStatus['promoted'] ?? 0;
  const rejected = byStatus['rejected'] ?? 0;
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    agent_slug: caller.agentSlug,
    since: q.since.toISOString(),
    counts: byStatus,
    total: Object.values(byStatus).reduce((a, b) => a + b, 0),
    promoted_share: share(promoted, promoted + rejected),
    rejected_share: share(rejected, promoted + rejected),
    top_reasons: reasons,
    median_seconds_to_decision: median === null ? null : Math.round(median * 1000) / 1000,
    rejections: page.map(rejectionView),
    next_cursor: rows.length > q.limit && last ? encodeCursor({ createdAt: last.reviewedAt, id: last.id }) : null,
  };
}
