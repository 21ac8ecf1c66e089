// Every processing run of every frame, counted from the database itself. An image run starts by
// inserting its row into `processing_runs` (apps/worker/src/image-runs.ts), which deletes it when
// the run ends; a trigger on that INSERT keeps one row per run in `test_run_log`, so every run is
// counted, crashed or not, whichever worker ran it.

/** One SQL statement on the database the runs are counted in (a pg pool's `query`, a harness's). */
export type RunLogQuery = (sql: string, params?: unknown[]) => Promise<unknown>;

/** Before any run to count: every run from now on leaves a row in `test_run_log`. */
export async function countProcessingRuns(query: RunLogQuery): Promise<void> {
  await query(`
    CREATE TABLE IF NOT EXISTS test_run_log (
      submission_id text NOT NULL,
      worker text NOT NULL,
      started_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE OR REPLACE FUNCTION test_log_run() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO test_run_log (submission_id, worker) VALUES (NEW.submission_id, NEW.worker);
      RETURN NEW;
    END $$;
    DROP TRIGGER IF EXISTS test_log_run ON processing_runs;
    CREATE TRIGGER test_log_run AFTER INSERT ON processing_runs FOR EACH ROW EXECUTE FUNCTION test_log_run();
  `);
}

/** The SQL of runs per frame over `$1` (frame ids): rows `{ id, runs }`, a frame never run counting 0. */
export const RUNS_PER_FRAME_SQL = `SELECT s.id, count(r.submission_id)::int AS runs
  FROM submissions s LEFT JOIN test_run_log r ON r.submission_id = s.id
  WHERE s.id = ANY($1) GROUP BY s.id`;
