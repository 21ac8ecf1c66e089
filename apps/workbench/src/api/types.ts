// The review API's JSON: the contract libs/review builds (libs/contracts/src/review.ts).
import { API_VISIBILITIES, REJECT_REASONS } from '@framedesk/contracts';
import type { ReviewMediaType, ReviewVisibility } from '@framedesk/contracts';

export type {
  ReviewBatchResult as BatchResult,
  ReviewChannelCount as ChannelCount,
  ReviewClaim as Claim,
  ReviewClickZone as ClickZone,
  ReviewDecisionInput as DecisionInput,
  ReviewEvent as SubmissionEvent,
  ReviewFailedSubmission as FailedSubmission,
  ReviewOps as Ops,
  ReviewQueueDepth as QueueDepth,
  ReviewQueueItem as QueueItem,
  ReviewQueuePage as QueuePage,
  ReviewRegion as Region,
  ReviewVersion as Version,
  ReviewInternalNote as InternalNote,
  ReviewSession as Session,
  ReviewStats,
  ReviewSubmissionDetail as SubmissionDetail,
  ReviewTimelinePage as TimelinePage,
} from '@framedesk/contracts';

export type MediaType = ReviewMediaType;
export type Visibility = ReviewVisibility;
export const VISIBILITIES: readonly Visibility[] = API_VISIBILITIES;
export const DEFAULT_REJECT_REASONS = REJECT_REASONS;

/** `GET /review/ops/workers`: who can work each queue, and the jobs held by a server fault. */
export interface OpsWorkers {
  readonly queues: Record<string, { workers: number; waiting: number; unavailable: readonly string[] }>;
  readonly banners: readonly string[];
  readonly server_faults: readonly {
    queue: string;
    job: string;
    submission_id: string | null;
    reason: string;
    since: string;
    age_seconds: number;
    tries: number;
  }[];
}
