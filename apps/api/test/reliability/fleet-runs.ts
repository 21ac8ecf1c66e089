// How many times each frame's processing ran (every run counted by the database itself:
// countProcessingRuns in libs/testing), and how long each waited for review, from the fleet's
// own database.
import { RUNS_PER_FRAME_SQL } from '@framedesk/testing';
import type pg from 'pg';

export interface ProcessingFigures {
  /** The most runs of one acknowledged frame. */
  readonly max_runs_per_frame: number;
  /** How many frames ran this many times ("1": once). */
  readonly runs_distribution: Record<string, number>;
  /**
   * Seconds from a frame's creation (its 202 follows within the same request) to its first
   * needs_review or decision: the longest and the median.
   */
  readonly wait_to_review_seconds: { readonly max: number | null; readonly p50: number | null };
  /** The frames that ran more than twice, with their runs (the drill wants none). */
  readonly ran_more_than_twice: { readonly id: string; readonly runs: number }[];
}

/** Runs per frame and the wait for review, over the acknowledged frames (images and MCP frames). */
export async function processingFigures(
  sql: pg.Pool,
  acked: readonly { readonly id: string; readonly kind: string }[],
): Promise<ProcessingFigures> {
  const ids = [...new Set(acked.filter((a) => a.kind !== 'video').map((a) => a.id))];
  const runs = await sql.query<{ id: string; runs: number }>(RUNS_PER_FRAME_SQL, [ids]);
  const waits = await sql.query<{ seconds: number }>(
    `SELECT extract(epoch FROM min(e.created_at) - s.created_at)::float8 AS seconds
     FROM submissions s JOIN submission_events e ON e.submission_id = s.id
     WHERE s.id = ANY($1) AND e.type = 'transition' AND e.to_status IN ('needs_review', 'promoted', 'rejected')
     GROUP BY s.id, s.created_at ORDER BY seconds`,
    [ids],
  );
  const distribution: Record<string, number> = {};
  for (const r of runs.rows) distribution[String(r.runs)] = (distribution[String(r.runs)] ?? 0) + 1;
  const seconds = waits.rows.map((w) => Math.round(w.seconds * 10) / 10);
  return {
    max_runs_per_frame: Math.max(0, ...runs.rows.map((r) => r.runs)),
    runs_distribution: distribution,
    wait_to_review_seconds: {
      max: seconds.length > 0 ? seconds[seconds.length - 1]! : null,
      p50: seconds.length > 0 ? seconds[Math.floor((seconds.length - 1) / 2)]! : null,
    },
    ran_more_than_twice: runs.rows.filter((r) => r.runs > 2),
  };
}
