import type { Database } from '@framedesk/db';
import { markSubmissionFailed } from './processing.service';

/**
 * Crashes of its processing (the worker ended: a native crash, out of memory) after which a frame
 * fails `processing_crashed` instead of being run again (docs/operations.md, "The image intake"):
 * `WORKER_CRASH_LIMIT`'s default.
 */
export const PROCESSING_CRASH_LIMIT = 3;

export interface CrashRecord {
  /** Crashes counted so far; null when the frame had left the pipeline. */
  readonly crashes: number | null;
  /** This crash was the last allowed: the frame is now failed `processing_crashed`. */
  readonly failed: boolean;
}

/**
 * Counts a run that ended with its worker — found when a stalled check takes it over — and fails
 * the frame at the limit, so a poison image stops killing workers. Not for runs that merely
 * failed or were retried: only for those whose worker stopped renewing its hold.
 */
export async function recordProcessingCrash(
  db: Database,
  submissionId: string,
  limit = PROCESSING_CRASH_LIMIT,
): Promise<CrashRecord> {
  const crashes = await db.repos.submissions.recordCrash(submissionId);
  if (crashes === null || crashes < limit) return { crashes, failed: false };
  const failed = await markSubmissionFailed(
    db,
    submissionId,
    'processing_crashed',
    `Its processing ended the worker ${crashes} times (a crash or out of memory); it is not run again. ` +
      'An operator can retry it.',
  );
  // The message keeps the count; an operator's retry starts from zero.
  if (failed) await db.repos.submissions.resetCrashes(submissionId);
  return { crashes, failed };
}
