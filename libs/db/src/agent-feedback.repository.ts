// An agent's own record (GET /v1/agents/{slug}/feedback): aggregates over its submissions, read
// through the (agent_id, created_at) index, and its rejections by decision time.
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';

export interface AgentRejectionRow {
  readonly id: string;
  readonly channelSlug: string;
  readonly title: string | null;
  readonly createdAt: Date;
  readonly reviewedAt: Date;
  readonly reviewerId: string | null;
  readonly reviewRule: string | null;
  readonly reviewReason: string | null;
  readonly reviewNote: string | null;
  readonly reviewRegions: unknown;
  /** A video rejection's time-coded items (jsonb), null when none. */
  readonly reviewMoments: unknown;
  readonly revisionOf: string | null;
}

export function agentFeedbackRepository(db: DbClient) {
  return {
    /** Frames sent since `since`, by status. */
    async countsByStatus(agentId: string, since: Date): Promise<Map<string, number>> {
      const rows = await db.$queryRaw<{ status: string; n: number }[]>(Prisma.sql`
        SELECT status::text AS status, count(*)::int AS n FROM submissions
        WHERE agent_id = ${agentId} AND created_at >= ${since} GROUP BY status`);
      return new Map(rows.map((r) => [r.status, r.n]));
    },

    /** Reasons of the rejected frames sent since `since`, most frequent first. */
    topReasons: (agentId: string, since: Date, limit: number) =>
      db.$queryRaw<{ reason: string; count: number }[]>(Prisma.sql`
        SELECT review_reason AS reason, count(*)::int AS count FROM submissions
        WHERE agent_id = ${agentId} AND created_at >= ${since} AND status = 'rejected' AND review_reason IS NOT NULL
        GROUP BY review_reason ORDER BY count(*) DESC, review_reason LIMIT ${limit}`),

    /** Median seconds from (the last) needs_review to the decision, over the decided frames sent since `since`. */
    async medianSecondsToDecision(agentId: string, since: Date): Promise<number | null> {
      const [row] = await db.$queryRaw<{ median: number | null }[]>(Prisma.sql`
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM s.reviewed_at - nr.at))::float8 AS median
        FROM submissions s
        CROSS JOIN LATERAL (
          SELECT max(e.created_at) AS at FROM submission_events e
          WHERE e.submission_id = s.id AND e.to_status = 'needs_review'
        ) nr
        WHERE s.agent_id = ${agentId} AND s.created_at >= ${since} AND s.status IN ('promoted', 'rejected')
          AND s.reviewed_at IS NOT NULL AND nr.at IS NOT NULL`);
      return row?.median ?? null;
    },

    /** Frames rejected since `since`, the most recently decided first; keyset on (reviewed_at, id). */
    rejections: (input: {
      agentId: string;
      since: Date;
      after?: { reviewedAt: Date; id: string };
      limit: number;
    }): Promise<AgentRejectionRow[]> =>
      db.$queryRaw<AgentRejectionRow[]>(Prisma.sql`
        SELECT s.id, c.slug AS "channelSlug", s.title, s.created_at AS "createdAt", s.reviewed_at AS "reviewedAt",
               s.reviewer_id AS "reviewerId", s.review_rule AS "reviewRule", s.review_reason AS "reviewReason",
               s.review_note AS "reviewNote", s.review_regions AS "reviewRegions",
               s.review_moments AS "reviewMoments", s.revision_of AS "revisionOf"
        FROM submissions s JOIN channels c ON c.id = s.channel_id
        WHERE s.agent_id = ${input.agentId} AND s.status = 'rejected' AND s.reviewed_at >= ${input.since}
          ${input.after ? Prisma.sql`AND (s.reviewed_at, s.id) < (${input.after.reviewedAt}, ${input.after.id})` : Prisma.empty}
        ORDER BY s.reviewed_at DESC, s.id DESC LIMIT ${input.limit}`),
  };
}
