import { randomUUID } from 'node:crypto';
import type { Database } from '@framedesk/db';
import type { Logger } from '@framedesk/observability';
import { judgeRun } from '@framedesk/submissions';

export interface ImageRunsOptions {
  readonly db: Database;
  /** This worker process's name (the intake consumer's). */
  readonly worker: string;
  /** WORKER_LOCK_SECONDS in ms: runs are renewed every quarter of it, and stale after half. */
  readonly lockDurationMs: number;
  /** WORKER_CRASH_LIMIT. */
  readonly crashLimit: number;
  readonly logger: Logger;
}

/** A run of an image in this worker, recorded in `processing_runs` until it ends. */
export interface ImageRun {
  end(): void;
}

/**
 * How a worker blames crashes on the frames that caused them (docs/reliability.md, "How crashes
 * are blamed"). Every image run is recorded while it runs (`processing_runs`, renewed every
 * quarter lock while the worker lives); before a frame runs again, the runs its earlier workers
 * died in are judged (`judgeRun`): a strike only for a crash it ran in alone. A suspect (it ran
 * in a crash beside others) or a frame struck before runs alone in this worker: it waits until
 * the runs here have ended, and nothing starts beside it.
 */
export function createImageRuns(options: ImageRunsOptions) {
  const { db, worker, logger } = options;
  const gate = runGate();
  const running = new Set<string>();
  /** Runs ended while PostgreSQL did not answer: deleted by the next renewal. */
  const ended: string[] = [];

  const renew = async () => {
    if (running.size === 0 && ended.length === 0) return;
    await db.repos.processingRuns.renew(worker);
    const done = ended.splice(0);
    await db.repos.processingRuns.end(done).catch((error: unknown) => {
      ended.push(...done);
      throw error;
    });
  };
  const timer = setInterval(() => {
    renew().catch((err: unknown) => logger.warn({ err }, 'image runs not renewed'));
  }, options.lockDurationMs / 4);
  timer.unref();

  return {
    /**
     * Before an image's handler: judges the frame's earlier crashes (`judge`: every run but an
     * intake entry's first), waits its turn and records the run. Null: the frame reached the
     * crash limit and is failed `processing_crashed`; it does not run. Throws what PostgreSQL
     * throws (the job is held, as for any server fault).
     */
    async begin(submissionId: string, judge: boolean, runLogger: Logger): Promise<ImageRun | null> {
      let alone = false;
      if (judge) {
        const verdict = await judgeRun(db, submissionId, {
          worker,
          staleMs: options.lockDurationMs / 2,
          limit: options.crashLimit,
        });
        const fields = { submission_id: submissionId, crashes: verdict.crashes, ...verdict.blame };
        if (!verdict.run) {
          runLogger.error(fields, 'image crashed its worker once too often: failed processing_crashed');
          return null;
        }
        if (verdict.blame.strikes > 0 || verdict.blame.suspect)
          runLogger.warn({ ...fields, alone: verdict.alone }, 'image ran in a worker crash; run again');
        alone = verdict.alone;
      }
      const leave = await gate.enter(alone);
      const id = randomUUID();
      try {
        await db.repos.processingRuns.start({ id, submissionId, worker });
      } catch (error) {
        leave();
        throw error;
      }
      running.add(id);
      return {
        end() {
          running.delete(id);
          leave();
          db.repos.processingRuns.end([id]).catch(() => ended.push(id));
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
