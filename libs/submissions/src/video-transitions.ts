import type { ProjectConfig } from '@framedesk/config';
import type { Database, SubmissionRow, SubmissionWithSlugs } from '@framedesk/db';
import { type FailureCode, FAILURE_CODES } from '@framedesk/domain';
import { finishProcessing } from './system-review';
import type { RouteVideo, VideoFacts } from './video-policy';

/** What one run of `processVideo` did (logged by the worker, asserted by tests). */
export type VideoOutcome = 'skipped' | 'waiting' | 'processing' | 'needs_review' | 'promoted' | 'rejected' | 'failed';

/** A provider's failure code when it is one of ours, `provider_error` otherwise. */
export function failureCodeOf(code: string): FailureCode {
  return (FAILURE_CODES as readonly string[]).includes(code) ? (code as FailureCode) : 'provider_error';
}

export interface VideoTransitionDeps {
  readonly db: Database;
  readonly config: Pick<ProjectConfig, 'approval_defaults'>;
  readonly now: () => Date;
  /** The channel's review policy (video-policy.ts). */
  readonly route: RouteVideo;
}

/** The video's status changes, each a compare-and-set: a repeated job or notification is a no-op. */
export function videoTransitions(deps: VideoTransitionDeps) {
  return {
    /** `message` is what the agent reads: a stable sentence; tool output goes to the event's `detail` only. */
    async fail(submissionId: string, code: FailureCode, message: string, detail?: string): Promise<VideoOutcome> {
      const result = await deps.db.transition({
        id: submissionId,
        to: 'failed',
        actor: { type: 'system' },
        // Never out of review: a late or replayed failure cannot undo a decision already made.
        onlyFrom: ['waiting_for_upload', 'media_processing'],
        reason: code,
        patch: { failureCode: code, failureMessage: message },
        ...(detail ? { data: { detail } } : {}),
      });
      return result.ok ? 'failed' : 'skipped';
    },

    async toProcessing(submission: SubmissionRow, reason: string): Promise<boolean> {
      if (submission.status === 'media_processing') return true;
      const moved = await deps.db.transition({
        id: submission.id,
        to: 'media_processing',
        actor: { type: 'system' },
        onlyFrom: ['waiting_for_upload'],
        reason,
      });
      return moved.ok;
    },

    /**
     * Media stored: out of `media_processing` as the channel's review policy routes it (a rule's
     * promote / reject as the system, review options, sampling), else by `approval_defaults` —
     * the same transition (`finishProcessing`) an image takes.
     */
    async finish(
      submission: SubmissionWithSlugs,
      media: VideoFacts,
      data: Record<string, unknown>,
    ): Promise<VideoOutcome> {
      const policy = await deps.route(submission, media);
      const done = await finishProcessing(deps.db, {
        id: submission.id,
        requiresReview: deps.config.approval_defaults.requires_review,
        reason: 'video processed',
        patch: {
          durationMs: media.durationMs,
          width: media.width,
          height: media.height,
          // Recorded for `policy simulate` and the workbench's timeline, as an image's signals are.
          ...(media.signals ? { signals: { ...media.signals } } : {}),
        },
        data,
        now: deps.now(),
        policy,
      });
      return done.ok ? done.to : 'skipped';
    },
  };
}

export type VideoTransitions = ReturnType<typeof videoTransitions>;
