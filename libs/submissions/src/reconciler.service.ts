import { PROCESSING_STATUSES } from '@framedesk/domain';
import type { Database } from '@framedesk/db';
import type { JobName, QueueProducer } from '@framedesk/queues';

export interface ReconcilerDeps {
  readonly db: Database;
  readonly queues: Pick<QueueProducer, 'hasLiveJob' | 'enqueueRerun' | 'intakeOldestEntryAt'>;
  /** A non-terminal submission untouched for this long without a live job is re-enqueued. */
  readonly reconcileAfterSeconds: number;
  /** Submissions looked at per pass. */
  readonly batchSize?: number;
  readonly now?: () => Date;
}

export interface ReconcileReport {
  readonly requeued: readonly { readonly submissionId: string; readonly job: JobName }[];
  readonly live: number;
}

/**
 * Nothing lost (DESIGN.md §7): finds submissions stuck in the pipeline (a crash between the
 * commit and the enqueue, a Redis flush, a job that exhausted its stalls) and enqueues them
 * again. Safe to run from many workers at once: a duplicate job loses the compare-and-set.
 */
export function reconcilerService(deps: ReconcilerDeps) {
  const now = deps.now ?? (() => new Date());
  const limit = deps.batchSize ?? 500;

  return {
    async run(): Promise<ReconcileReport> {
      const at = now();
      const before = new Date(at.getTime() - deps.reconcileAfterSeconds * 1000);
      const requeued: { submissionId: string; job: JobName }[] = [];
      let live = 0;

      const stale = await deps.db.repos.submissions.findStale(PROCESSING_STATUSES, before, limit);
      const intakeSince = stale.some((s) => s.mediaType === 'image') ? await deps.queues.intakeOldestEntryAt() : null;
      for (const submission of stale) {
        const job: JobName | null =
          submission.mediaType === 'image'
            ? 'image.process'
            : submission.status === 'media_processing'
              ? 'video.process'
              : null;
        if (!job) continue;
        const payload = { submissionId: submission.id };
        if (
          job === 'image.process' &&
          mayBeInIntake(intakeSince, submission.updatedAt, at, deps.reconcileAfterSeconds)
        ) {
          live++;
          continue;
        }
        if (await deps.queues.hasLiveJob(job, payload)) {
          live++;
          continue;
        }
        await deps.queues.enqueueRerun(job, payload);
        // Restart its clock so the next passes leave it to the job just enqueued.
        await deps.db.repos.submissions.touch(submission.id);
        requeued.push({ submissionId: submission.id, job });
      }

      for (const upload of await deps.db.repos.submissions.findExpiredUploads(at, limit)) {
        const payload = { submissionId: upload.submissionId, uploadId: upload.id };
        if (await deps.queues.hasLiveJob('upload.expire', payload)) {
          live++;
          continue;
        }
        await deps.queues.enqueueRerun('upload.expire', payload);
        requeued.push({ submissionId: upload.submissionId, job: 'upload.expire' });
      }
      return { requeued, live };
    },
  };
}

/** How far the API's and Redis's clocks may disagree, for `mayBeInIntake`. */
const CLOCK_SKEW_MS = 60_000;

/**
 * How long the reconciler trusts the intake with a stale image, in `RECONCILE_AFTER_SECONDS`:
 * an image untouched for this many times that (10 minutes by default) is re-run whatever the
 * intake holds (docs/operations.md, "The image intake").
 */
export const INTAKE_TRUST_FACTOR = 5;

/**
 * The intake is read in order and an image leaves it once it has run, so an image submitted
 * (or touched) after the intake's oldest entry was added may still be waiting there; one
 * submitted before that has been taken and run, or never arrived. The first kind is left alone
 * (its entry will come), the second is re-run. That mark is global — one flooding agent's
 * backlog, or one entry renewed for ever, keeps it old — so the wait is bounded: an image
 * untouched for `INTAKE_TRUST_FACTOR × reconcileAfterSeconds` is re-run whatever the intake
 * says. A second run is safe: every step is a compare-and-set.
 */
export function mayBeInIntake(
  intakeOldestEntryAt: number | null,
  updatedAt: Date,
  now: Date,
  reconcileAfterSeconds: number,
): boolean {
  if (now.getTime() - updatedAt.getTime() > INTAKE_TRUST_FACTOR * reconcileAfterSeconds * 1000) return false;
  return intakeOldestEntryAt !== null && intakeOldestEntryAt <= updatedAt.getTime() + CLOCK_SKEW_MS;
}

export type ReconcilerService = ReturnType<typeof reconcilerService>;
