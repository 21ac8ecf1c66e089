import type { Database, DeadRun } from '@framedesk/db';
import { markSubmissionFailed } from './processing.service';

/**
 * Crashes of its processing (the worker ended: a native crash, out of memory) after which a frame
 * fails `processing_crashed` instead of being run again (docs/operations.md, "The image intake"):
 * `WORKER_CRASH_LIMIT`'s default.
 */
export const PROCESSING_CRASH_LIMIT = 3;

export type { DeadRun };

/** What the crashes a frame's earlier runs were found in say of it. */
export interface CrashBlame {
  /** Crashes it is blamed for: those it ran in alone. */
  readonly strikes: number;
  /** It ran in a crash beside other frames: any of them may have caused it. */
  readonly suspect: boolean;
}

/**
 * The blame rule (docs/reliability.md, "How crashes are blamed"): a crash is a frame's strike
 * only when that frame was the one run its worker died in. A frame that merely ran beside
 * others gets no strike; it is a suspect, run again alone, so that if it is the cause its next
 * crash is its own. Entries read but not started left no run behind and are not here at all.
 */
export function blameCrashes(dead: readonly DeadRun[]): CrashBlame {
  return {
    strikes: dead.filter((run) => run.peers <= 1).length,
    suspect: dead.some((run) => run.peers > 1),
  };
}

/** What a run of an image may do, judged by the crashes of the runs before it. */
export type RunVerdict =
  /** Run it; `alone` when nothing else may run in its worker meanwhile (a suspect, or struck before). */
  | { readonly run: true; readonly alone: boolean; readonly crashes: number; readonly blame: CrashBlame }
  /** Its crashes reached the limit: it is failed `processing_crashed`, not run. */
  | { readonly run: false; readonly crashes: number; readonly blame: CrashBlame };

export interface JudgeRunOptions {
  /** This worker process (its own runs are never crashes: it lives). */
  readonly worker: string;
  /** A run unrenewed this long was left by a worker that died. */
  readonly staleMs: number;
  readonly limit?: number;
}

/**
 * Judges the crashes of a frame's earlier runs before it runs again: strikes counted on the
 * frame (`crash_count`), which fails `processing_crashed` at the limit. Throws only what
 * PostgreSQL throws (the caller holds the job, as for any server fault); nothing is taken then.
 */
export async function judgeRun(db: Database, submissionId: string, options: JudgeRunOptions): Promise<RunVerdict> {
  const limit = options.limit ?? PROCESSING_CRASH_LIMIT;
  // One statement: the runs taken off the table and the strikes they are worth.
  const { crashCount: crashes, dead } = await db.repos.processingRuns.takeDeadRuns(
    submissionId,
    options.worker,
    options.staleMs,
  );
  const blame = blameCrashes(dead);
  if (crashes >= limit) {
    const failed = await markSubmissionFailed(
      db,
      submissionId,
      'processing_crashed',
      `Its processing ended the worker ${crashes} times (a crash or out of memory) while it ran alone; ` +
        'it is not run again. An operator can retry it.',
    );
    // The message keeps the count; an operator's retry starts from zero.
    if (failed) {
      await db.repos.submissions.resetCrashes(submissionId);
      return { run: false, crashes, blame };
    }
  }
  return { run: true, alone: blame.suspect || crashes > 0, crashes, blame };
}
