import { Prisma, type PrismaClient } from './generated/prisma/client.ts';
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

/** A year's window at 500,000 frames is seconds of work on a busy machine: more than Prisma's default 5 s. */
const TRANSACTION_LIMITS = { timeout: 60_000, maxWait: 10_000 };

/**
 * The client itself, or null inside a caller's transaction. Told apart by `$connect`, which a
 * transaction client lacks (Prisma 7's has a `$transaction` of its own: a nested transaction).
 */
const ownClient = (db: DbClient): PrismaClient | null => ('$connect' in db ? (db as PrismaClient) : null);

/** The Team view's numbers, one statement over the reviewer events of a window. */
export function teamStatsRepository(db: DbClient) {
  return {
    /**
     * Per reviewer (every enabled account, and a disabled one with decisions in the window), over
     * decisions made in [since, until):
     *
     * - a decision is a reviewer's promote or reject transition, or their approval of a frame that
     *   asks for two; an approval and a transition of the same reviewer on one frame, one after the
     *   other, are one decision;
     * - a decision's time runs from the reviewer's previous act (their claim of a frame, which the
     *   workbench makes when it shows one, or their previous decision) to the decision, so their
     *   timed decisions add up to the time they spent without counting any of it twice; a time over
     *   TEAM_PAUSE_SECONDS (a pause), or with no act before it, is left out of the median, which is
     *   `percentile_cont(0.5)` of the rest, in seconds;
     * - promoted-then-rejected counts frames the reviewer approved in the window that another
     *   reviewer rejected afterwards;
     * - sampled/agreed read `agrees_with_policy` in the decision's event data.
     *
     * One statement, per reviewer (lateral), read from two partial indexes of submission_events
     * (actor_type = 'reviewer'; migration 20261127204300_team_stats_covering_index):
     *
     * - `submission_events_reviewer_acts_idx` (actor_id, created_at, id, type, to_status,
     *   submission_id): the reviewer's acts in time order, reaching back TEAM_PAUSE_SECONDS before
     *   `since` for the acts the window's first decisions are timed from. An index-only scan: no
     *   sort, no heap page (the table's heap pages, one per event, were 95% of the first form's
     *   buffers). The window carries two lags only (the previous act's time, and its frame when it
     *   was a decision); the seconds are computed after the claims are filtered out.
     * - `submission_events_reviewer_sampled_idx`: the few decisions a policy sampled, the only rows
     *   whose `data` is read (hash-joined to the decisions by id).
     *
     * (submission_id, id) serves the rejections after an approval. JIT compiling is off for it: it
     * cost more than the statement itself. Measured in docs/performance.md ("Team view").
     */
    async perReviewer(window: { since: Date; until: Date }): Promise<TeamStatsRow[]> {
      const { since, until } = window;
      const from = Prisma.sql`${since}::timestamptz`;
      const to = Prisma.sql`${until}::timestamptz`;
      const statement = Prisma.sql`
        SELECT r.id AS "reviewerId", r.email, r.name, r.role::text AS role, r.disabled_at IS NOT NULL AS disabled, s.*
          FROM reviewers r
         CROSS JOIN LATERAL (
           SELECT count(*) AS decisions,
                  count(*) FILTER (WHERE d.type = ${APPROVAL_EVENT} OR d.to_status = 'promoted') AS promoted,
                  count(*) FILTER (WHERE d.to_status = 'rejected') AS rejected,
                  count(*) FILTER (WHERE d.seconds <= ${TEAM_PAUSE_SECONDS}) AS timed,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY d.seconds)
                    FILTER (WHERE d.seconds <= ${TEAM_PAUSE_SECONDS}) AS "medianSeconds",
                  count(*) FILTER (
                    WHERE d.type = ${APPROVAL_EVENT}
                      AND EXISTS (SELECT 1 FROM submission_events x
                                   WHERE x.submission_id = d.submission_id AND x.id > d.id
                                     AND x.type = 'transition' AND x.to_status = 'rejected'
                                     AND x.actor_type = 'reviewer' AND x.actor_id <> r.id)) AS "promotedThenRejected",
                  count(p.agrees) AS sampled,
                  count(*) FILTER (WHERE p.agrees) AS agreed
             FROM (
               SELECT a.id, a.submission_id, a.type, a.to_status,
                      date_part('epoch', a.created_at - a.previous_at) AS seconds
                 FROM (
                   SELECT e.id, e.submission_id, e.type, e.to_status, e.created_at,
                          lag(e.created_at) OVER w AS previous_at,
                          lag(CASE WHEN e.type <> 'claimed' THEN e.submission_id END) OVER w AS previous_decided
                     FROM submission_events e
                    WHERE e.actor_type = 'reviewer' AND e.actor_id = r.id
                      AND e.created_at >= ${from} - make_interval(secs => ${TEAM_PAUSE_SECONDS})
                      AND e.created_at < ${to}
                      AND (e.type IN ('claimed', ${APPROVAL_EVENT})
                           OR (e.type = 'transition' AND e.to_status IN ('promoted', 'rejected')))
                   WINDOW w AS (ORDER BY e.created_at, e.id ROWS UNBOUNDED PRECEDING)
                 ) a
                WHERE a.type <> 'claimed' AND a.created_at >= ${from}
                  AND a.previous_decided IS DISTINCT FROM a.submission_id
             ) d
             LEFT JOIN (
               SELECT e.id, (e.data -> 'agrees_with_policy')::boolean AS agrees
                 FROM submission_events e
                WHERE e.actor_type = 'reviewer' AND e.actor_id = r.id
                  AND e.created_at >= ${from} AND e.created_at < ${to}
                  AND jsonb_typeof(e.data -> 'agrees_with_policy') = 'boolean'
             ) p ON p.id = d.id
         ) s
         WHERE r.disabled_at IS NULL OR s.decisions > 0
         ORDER BY s.decisions DESC, r.email`;
      // Inside a caller's transaction the statement runs as it is; on its own, in one with JIT off.
      const client = ownClient(db);
      const rows = client
        ? await client.$transaction(async (tx) => {
            await tx.$executeRaw`SET LOCAL jit = off`;
            return tx.$queryRaw<RawRow[]>(statement);
          }, TRANSACTION_LIMITS)
        : await db.$queryRaw<RawRow[]>(statement);
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
