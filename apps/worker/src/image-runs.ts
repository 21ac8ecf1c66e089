import { randomUUID } from 'node:crypto';
import type { Database, RunStart } from '@framedesk/db';
import type { Logger } from '@framedesk/observability';
import { judgeRun } from '@framedesk/submissions';

export interface ImageRunsOptions {
  readonly db: Database;
  /** This worker process's name (the intake consumer's). */
  readonly worker: string;
  /** WORKER_LOCK_SECONDS in ms: runs are renewed within a quarter of it, and stale after half. */
  readonly lockDurationMs: number;
  /** WORKER_CRASH_LIMIT. */
  readonly crashLimit: number;
  readonly logger: Logger;
}

/** A run of an image in this worker, recorded in `processing_runs` until it ends. */
export interface ImageRun {
  readonly kind: 'run';
  end(): void;
}

/** What `begin` decided: the run, or why the frame does not run now (see `begin`). */
export type RunBegin =
  | ImageRun
  | { readonly kind: 'crashed' }
  | { readonly kind: 'done'; readonly status: string | null }
  | { readonly kind: 'running'; readonly worker: string; readonly retryInMs: number };

/**
 * How a worker blames crashes on the frames that caused them (docs/reliability.md, "How crashes
 * are blamed"). Every image run is recorded while it runs (`processing_runs`, renewed while the
 * worker lives, never older than a quarter lock); before a frame runs again, the runs its earlier workers
 * died in are judged (`judgeRun`): a strike only for a crash it ran in alone. A suspect (it ran
 * in a crash beside others) or a frame struck before runs alone in this worker: it waits until
 * the runs here have ended, and nothing starts beside it.
 */
export function createImageRuns(options: ImageRunsOptions) {
  const { db, worker, logger } = options;
  const gate = runGate();
  /** Runs going on here: their start times. */
  const running = new Map<string, number>();
  /** Runs ended here whose rows are not deleted yet: deleted with the next start, or by the renewal. */
  const ended: { id: string; at: number }[] = [];
  const tick = options.lockDurationMs / 8;
  /** A run unrenewed this long is one its worker died in; renewed within it, it is live. */
  const staleMs = options.lockDurationMs / 2;
  let renewedAt = 0;

  // Only what needs it, so a short run costs one statement (its start): rows of runs older than a
  // tick are renewed (none is ever older than a quarter lock unrenewed: judged dead after half),
  // rows of runs that ended a tick ago and no start took along are deleted.
  const renew = async () => {
    const now = Date.now();
    const due = [...running.values()].some((start) => start < now - tick) && renewedAt < now - tick;
    if (due) {
      await db.repos.processingRuns.renew(worker);
      renewedAt = now;
    }
    if (ended.length > 0 && ended[0]!.at < now - tick) {
      const done = ended.splice(0);
      await db.repos.processingRuns.end(done.map((run) => run.id)).catch((error: unknown) => {
        ended.unshift(...done);
        throw error;
      });
    }
  };
  const timer = setInterval(() => {
    renew().catch((err: unknown) => logger.warn({ err }, 'image runs not renewed'));
  }, tick);
  timer.unref();

  return {
    /**
     * Before an image's handler: judges the frame's earlier crashes (`judge`: every run but an
     * intake entry's first), waits its turn and records the run, if it is the frame's one run
     * (docs/reliability.md, "One run of a frame at a time"). `crashed`: the frame reached the
     * crash limit and is failed `processing_crashed`; `done`: it left the pipeline (a re-delivery
     * after its run); `running`: another run of it is live (on `worker`), look again after
     * `retryInMs`. Throws what PostgreSQL throws (the job is held, as for any server fault).
     */
    async begin(submissionId: string, judge: boolean, runLogger: Logger): Promise<RunBegin> {
      let alone = false;
      if (judge) {
        const verdict = await judgeRun(db, submissionId, {
          worker,
          staleMs,
          limit: options.crashLimit,
        });
        const fields = { submission_id: submissionId, crashes: verdict.crashes, ...verdict.blame };
        if (!verdict.run) {
          runLogger.error(fields, 'image crashed its worker once too often: failed processing_crashed');
          return { kind: 'crashed' };
        }
        if (verdict.blame.strikes > 0 || verdict.blame.suspect)
          runLogger.warn({ ...fields, alone: verdict.alone }, 'image ran in a worker crash; run again');
        alone = verdict.alone;
      }
      const leave = await gate.enter(alone);
      const id = randomUUID();
      const taken = ended.splice(0);
      let start: RunStart;
      try {
        start = await db.repos.processingRuns.start(
          { id, submissionId, worker },
          { ended: taken.map((run) => run.id), liveWithinMs: staleMs },
        );
      } catch (error) {
        ended.unshift(...taken);
        leave();
        throw error;
      }
      if (!start.started) {
        leave();
        if ('runningOn' in start)
          return { kind: 'running', worker: start.runningOn, retryInMs: options.lockDurationMs / 4 };
        return { kind: 'done', status: start.status };
      }
      running.set(id, Date.now());
      return {
        kind: 'run',
        end() {
          running.delete(id);
          ended.push({ id, at: Date.now() });
          leave();
        },
      };
    },
  };
}

export type ImageRuns = ReturnType<typeof createImageRuns>;

/**
 * Runs share the worker, or one runs alone: a run that must be alone waits for those running to
 * end, and those that come after it wait for it (first come, first served).
 */
function runGate() {
  let shared = 0;
  let exclusive = false;
  const waiting: { alone: boolean; go: () => void }[] = [];
  const pump = () => {
    for (let next = waiting[0]; next; next = waiting[0]) {
      if (exclusive || (next.alone && shared > 0)) return;
      waiting.shift();
      if (next.alone) exclusive = true;
      else shared++;
      next.go();
    }
  };
  return {
    async enter(alone: boolean): Promise<() => void> {
      await new Promise<void>((go) => {
        waiting.push({ alone, go });
        pump();
      });
      let left = false;
      return () => {
        if (left) return;
        left = true;
        if (alone) exclusive = false;
        else shared--;
        pump();
      };
    },
  };
}
