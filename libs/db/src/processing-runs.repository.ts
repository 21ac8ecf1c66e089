import type { DbClient } from './prisma';
import { IN_PROCESSING } from './transition-sql';

/** A run of a frame found left behind by a worker that died, with the size of its crash. */
export interface DeadRun {
  readonly worker: string;
  /** How many runs its worker died in (1: this one ran alone). */
  readonly peers: number;
}

/**
 * What a run's start found: it started (the frame's one run), another run of the frame is live
 * (`runningOn`: its worker), or the frame has left the pipeline (`status`; null: no such frame).
 */
export type RunStart =
  | { readonly started: true }
  | { readonly started: false; readonly runningOn: string }
  | { readonly started: false; readonly status: string | null };

/**
 * `processing_runs`: one row per image run while it runs (docs/reliability.md, "How crashes are
 * blamed"). A row whose worker stopped renewing it is a run its worker died in; the rows that
 * worker left together are the runs of that crash.
 */
export function processingRunsRepository(db: DbClient) {
  return {
    /**
     * A run of the frame starts on `worker`, if it is the frame's one run: the frame is still in
     * the pipeline (`received` or `media_processing`) and no other run of it is live (a row seen
     * within `liveWithinMs`, whichever worker: its own re-run waits for it, its worker's death
     * makes it stale). In the same statement, the rows of runs that ended since are deleted
     * (`ended`), so a run costs one statement. Two starts within the same instant may both see
     * the frame free; every step of a run is a compare-and-set, so the second changes nothing.
     */
    async start(
      run: { id: string; submissionId: string; worker: string },
      options: { ended?: readonly string[]; liveWithinMs: number },
    ): Promise<RunStart> {
      const ended = [...(options.ended ?? [])];
      const rows = await db.$queryRaw<
        { status: string | null; open: boolean | null; holder: string | null; started: boolean }[]
      >`
        WITH ended AS (DELETE FROM processing_runs WHERE id = ANY(${ended}::text[])),
        frame AS (
          SELECT status::text AS status, status IN ${IN_PROCESSING} AS open
          FROM submissions WHERE id = ${run.submissionId}
        ),
        holder AS (
          SELECT worker FROM processing_runs
          WHERE submission_id = ${run.submissionId} AND NOT (id = ANY(${ended}::text[]))
            AND seen_at >= now() - make_interval(secs => ${options.liveWithinMs / 1000}::float8)
          LIMIT 1
        ),
        started AS (
          INSERT INTO processing_runs (id, submission_id, worker)
          SELECT ${run.id}, ${run.submissionId}, ${run.worker}
          WHERE EXISTS (SELECT 1 FROM frame WHERE open)
            AND NOT EXISTS (SELECT 1 FROM holder)
          RETURNING id
        )
        SELECT (SELECT status FROM frame) AS status, (SELECT open FROM frame) AS open,
          (SELECT worker FROM holder) AS holder, EXISTS (SELECT 1 FROM started) AS started`;
      const row = rows[0];
      if (row?.started) return { started: true };
      if (row?.open) return { started: false, runningOn: row.holder ?? 'unknown' };
      return { started: false, status: row?.status ?? null };
    },

    /** Runs that ended in a living worker (whatever their outcome). */
    async end(ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await db.$executeRaw`DELETE FROM processing_runs WHERE id = ANY(${[...ids]}::text[])`;
    },

    /** The worker lives: its runs are not crashes. */
    async renew(worker: string): Promise<void> {
      await db.$executeRaw`UPDATE processing_runs SET seen_at = now() WHERE worker = ${worker}`;
    },

    /**
     * The runs of this frame that another worker left behind unrenewed for `staleMs` (it died in
     * them), each with the number of runs its worker died in; taken off the table. The first
     * judgement of a crash writes its size on every run of it (`crash_peers`), so the frames
     * judged later read the same size though the others' rows are gone by then. Also: its frame's
     * crash count with the strikes just counted (a crash it ran in alone, while it is in the
     * pipeline), and rows of crashes nobody came back for within a day are dropped.
     */
    async takeDeadRuns(
      submissionId: string,
      self: string,
      staleMs: number,
    ): Promise<{ crashCount: number; dead: DeadRun[] }> {
      // One statement (atomic): the runs taken off the table are counted with them, or neither.
      const rows = await db.$queryRaw<{ crash_count: number | null; dead: DeadRun[] | null }[]>`
        WITH dead AS (
          SELECT id, worker, crash_peers FROM processing_runs
          WHERE submission_id = ${submissionId} AND worker <> ${self}
            AND seen_at < now() - make_interval(secs => ${staleMs / 1000}::float8)
        ),
        peers AS (
          SELECT worker, count(*)::int AS n FROM processing_runs
          WHERE worker IN (SELECT worker FROM dead) GROUP BY worker
        ),
        judged AS (
          SELECT d.worker, COALESCE(d.crash_peers, p.n) AS peers FROM dead d JOIN peers p USING (worker)
        ),
        closed AS (
          UPDATE processing_runs r SET crash_peers = p.n FROM peers p
          WHERE r.worker = p.worker AND r.crash_peers IS NULL AND r.submission_id <> ${submissionId}
        ),
        taken AS (DELETE FROM processing_runs WHERE id IN (SELECT id FROM dead)),
        forgotten AS (
          DELETE FROM processing_runs
          WHERE EXISTS (SELECT 1 FROM dead) AND seen_at < now() - interval '1 day'
        ),
        struck AS (
          UPDATE submissions SET crash_count = crash_count + (SELECT count(*) FROM judged WHERE peers <= 1)
          WHERE id = ${submissionId} AND status IN ${IN_PROCESSING}
            AND EXISTS (SELECT 1 FROM judged WHERE peers <= 1)
          RETURNING crash_count
        )
        SELECT COALESCE((SELECT crash_count FROM struck), (SELECT crash_count FROM submissions WHERE id = ${submissionId})) AS crash_count,
          (SELECT json_agg(json_build_object('worker', worker, 'peers', peers)) FROM judged) AS dead`;
      return { crashCount: rows[0]?.crash_count ?? 0, dead: rows[0]?.dead ?? [] };
    },
  };
}
