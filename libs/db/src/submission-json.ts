import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import type { SubmissionRow } from './submission-rows';

/**
 * Submissions read by raw SQL come back as one JSON value per statement: Prisma converts a raw
 * result cell by cell, so a page of 50 rows × 25 columns cost it several milliseconds where one
 * cell costs it almost nothing.
 */

/** Every column of `submissions s` under its `SubmissionRow` name. */
export const SUBMISSION_COLUMNS = Prisma.sql`
         s.id, s.status::text AS "status", s.media_type::text AS "mediaType", s.agent_id AS "agentId",
         s.channel_id AS "channelId", s.date, s.metadata, s.title, s.visibility::text AS "visibility",
         s.failure_code AS "failureCode", s.failure_message AS "failureMessage",
         s.review_decision::text AS "reviewDecision", s.review_reason AS "reviewReason",
         s.reviewer_id AS "reviewerId", s.reviewed_at AS "reviewedAt", s.claimed_by AS "claimedBy",
         s.claimed_until AS "claimedUntil", s.width, s.height, s.duration_ms AS "durationMs",
         s.created_at AS "createdAt", s.updated_at AS "updatedAt", s.purged_at AS "purgedAt",
         s.review_note AS "reviewNote", s.review_regions AS "reviewRegions", s.review_moments AS "reviewMoments", s.review_rule AS "reviewRule",
         s.revision_of AS "revisionOf", s.review_priority AS "reviewPriority", s.due_at AS "dueAt",
         s.approvals_required AS "approvalsRequired", s.policy_outcome AS "policyOutcome",
         s.approved_by AS "approvedBy"`;

type Timestamp = string;

/** A `SubmissionRow` as JSON carries it: timestamps as ISO strings. */
export type JsonSubmissionRow = Omit<
  SubmissionRow,
  'reviewedAt' | 'claimedUntil' | 'createdAt' | 'updatedAt' | 'purgedAt' | 'dueAt'
> & {
  readonly dueAt?: Timestamp | null;
  readonly reviewedAt: Timestamp | null;
  readonly purgedAt: Timestamp | null;
  readonly claimedUntil: Timestamp | null;
  readonly createdAt: Timestamp;
  readonly updatedAt: Timestamp;
};

const dateOrNull = (value: Timestamp | null) => (value === null ? null : new Date(value));

/** The row's timestamps as Dates again. */
export function withDates<T extends JsonSubmissionRow>(raw: T): Omit<T, keyof JsonSubmissionRow> & SubmissionRow {
  return {
    ...raw,
    reviewedAt: dateOrNull(raw.reviewedAt),
    claimedUntil: dateOrNull(raw.claimedUntil),
    createdAt: new Date(raw.createdAt),
    updatedAt: new Date(raw.updatedAt),
    purgedAt: dateOrNull(raw.purgedAt),
    dueAt: dateOrNull(raw.dueAt ?? null),
  };
}

/**
 * Runs `rows` (a SELECT whose every row has a `"position"` column giving its order) and returns
 * its rows, in that order, as parsed JSON objects: one statement, one cell.
 */
export async function selectJsonRows<T>(db: DbClient, rows: Prisma.Sql): Promise<T[]> {
  const [result] = await db.$queryRaw<{ rows: T[] }[]>`
    SELECT COALESCE(json_agg(r ORDER BY r."position"), '[]'::json) AS "rows" FROM (${rows}) r`;
  return result?.rows ?? [];
}
