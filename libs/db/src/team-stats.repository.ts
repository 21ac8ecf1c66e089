import type { DbClient } from './prisma';

/**
 * The event a first reviewer's approval writes when a frame asks for two (issue 36 records it:
 * actor `reviewer`, the frame stays in `needs_review`). An approval is a promote by that reviewer.
 */
export const APPROVAL_EVENT = 'approval';

/** A gap longer than this is a pause, not the time a decision took (the same bound as GET /review/stats). */
export const TEAM_PAUSE_SECONDS = 15 * 60;

/** One reviewer's numbers over a window; see `teamStatsRepository.perReviewer`. */
export interface TeamStatsRow {
  readonly reviewerId: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: 'admin' | 'reviewer';
  readonly disabled: boolean;
  readonly decisions: number;
  readonly promoted: number;
  readonly rejected: number;
  /** Decisions whose time could be measured (a start within the pause bound). */
  readonly timed: number;
  readonly medianSeconds: number | null;
  readonly promotedThenRejected: number;
  readonly sampled: number;
  readonly agreed: number;
}

type RawRow = { [K in keyof TeamStatsRow]: TeamStatsRow[K] extends number ? bigint | number : TeamStatsRow[K] };

/** The Team view's numbers, one statement over the reviewer events of a window. */
export function teamStatsRepository(db: DbClient) {
  return {
    /**
     * Per reviewer (every enabled account, and a disabled one with decisions in the window), over
     * decisions made in [since, until):
     *
     * - a decision is a reviewer's promote or reject transition, or their approval of a frame that
     *   asks for two; one per reviewer and frame (the first);
     * - its time runs from the later of the reviewer's latest claim of that frame and their previous
     *   decision, to the decision; a time over TEAM_PAUSE_SECONDS (or with neither start) is left
     *   out of the median, which is `percentile_cont(0.5)` of the rest, in seconds;
     * - promoted-then-rejected counts frames the reviewer approved in the window that another
     *   reviewer rejected afterwards;
     * - sampled/agreed read `agrees_with_policy` in the decision's event data.
     *
     * Reads the window's reviewer events through submission_events(actor_type, created_at), reaching
     * back TEAM_PAUSE_SECONDS before `since` for the claims and decisions a window's first decisions
     * are timed from, and probes (submission_id, id) for the rejections after an approval.
     */
    async perReviewer(window: { since: Date; until: Date }): Promise<TeamStatsRow[]> {
      const { since, until } = window;
      const rows = await db.$queryRaw<RawRow[]>`
        WITH acts AS (
          SELECT e.id, e.actor_id, e.submission_id, e.type, e.to_status, e.created_at, e.data,
                 max(e.created_at) FILTER (WHERE e.type = 'claimed') OVER w AS claimed_at,
                 count(*) FILTER (WHERE e.type <> 'claimed') OVER w AS nth_decision
            FROM submission_events e
           WHERE e.actor_type = 'reviewer'
             AND e.created_at >= ${since}::timestamptz - make_interval(secs => ${TEAM_PAUSE_SECONDS})
             AND e.created_at < ${until}::timestamptz
             AND (e.type IN ('claimed', ${APPROVAL_EVENT})
                  OR (e.type = 'transition' AND e.to_status IN ('promoted', 'rejected')))
          WINDOW w AS (PARTITION BY e.actor_id, e.submission_id ORDER BY e.created_at, e.id
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
        ),
        decisions AS (
          SELECT a.*, lag(a.created_at) OVER (PARTITION BY a.actor_id ORDER BY a.created_at, a.id) AS previous_at
            FROM acts a
           WHERE a.type <> 'claimed' AND a.nth_decision = 1
        ),
        timed AS (
          SELECT d.actor_id, d.type, d.to_status, d.data,
                 extract(epoch FROM d.created_at - greatest(d.claimed_at, d.previous_at))::float8 AS seconds,
                 d.type = ${APPROVAL_EVENT}
                   AND EXISTS (SELECT 1 FROM submission_events r
                                WHERE r.submission_id = d.submission_id AND r.id > d.id
                                  AND r.type = 'transition' AND r.to_status = 'rejected'
                                  AND r.actor_type = 'reviewer' AND r.actor_id <> d.actor_id) AS overturned
            FROM decisions d
           WHERE d.created_at >= ${since}::timestamptz
        ),
        per_reviewer AS (
          SELECT t.actor_id,
                 count(*) AS decisions,
                 count(*) FILTER (WHERE t.type = ${APPROVAL_EVENT} OR t.to_status = 'promoted') AS promoted,
                 count(*) FILTER (WHERE t.type <> ${APPROVAL_EVENT} AND t.to_status = 'rejected') AS rejected,
                 count(t.seconds) FILTER (WHERE t.seconds <= ${TEAM_PAUSE_SECONDS}) AS timed,
                 percentile_cont(0.5) WITHIN GROUP (ORDER BY t.seconds)
                   FILTER (WHERE t.seconds <= ${TEAM_PAUSE_SECONDS}) AS median_seconds,
                 count(*) FILTER (WHERE jsonb_typeof(t.data -> 'agrees_with_policy') = 'boolean') AS sampled,
                 count(*) FILTER (WHERE t.data -> 'agrees_with_policy' = 'true'::jsonb) AS agreed,
                 count(*) FILTER (WHERE t.overturned) AS promoted_then_rejected
            FROM timed t
           GROUP BY t.actor_id
        )
        SELECT r.id AS "reviewerId", r.email, r.name, r.role::text AS role, r.disabled_at IS NOT NULL AS disabled,
               coalesce(p.decisions, 0) AS decisions, coalesce(p.promoted, 0) AS promoted,
               coalesce(p.rejected, 0) AS rejected, coalesce(p.timed, 0) AS timed,
               p.median_seconds AS "medianSeconds",
               coalesce(p.promoted_then_rejected, 0) AS "promotedThenRejected",
               coalesce(p.sampled, 0) AS sampled, coalesce(p.agreed, 0) AS agreed
          FROM reviewers r
          LEFT JOIN per_reviewer p ON p.actor_id = r.id
         WHERE r.disabled_at IS NULL OR p.decisions > 0
         ORDER BY coalesce(p.decisions, 0) DESC, r.email`;
      return rows.map((r) => ({
        ...r,
        decisions: Number(r.decisions),
        promoted: Number(r.promoted),
        rejected: Number(r.rejected),
        timed: Number(r.timed),
        medianSeconds: r.medianSeconds === null ? null : Number(r.medianSeconds),
        promotedThenRejected: Number(r.promotedThenRejected),
        sampled: Number(r.sampled),
        agreed: Number(r.agreed),
      }));
    },
  };
}
