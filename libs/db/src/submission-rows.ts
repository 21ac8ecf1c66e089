// A submission as its row reads, on its own so that the repository and the JSON readers it uses
// (submission-json, submission-resources) share it without importing one another.
import type { MediaType, SubmissionStatus, Visibility } from '@framedesk/domain';

export interface SubmissionRow {
  readonly id: string;
  readonly status: SubmissionStatus;
  readonly mediaType: MediaType;
  readonly agentId: string;
  readonly channelId: string;
  readonly date: string;
  readonly metadata: unknown;
  readonly title: string | null;
  readonly visibility: Visibility;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly reviewDecision: 'promoted' | 'rejected' | null;
  readonly reviewReason: string | null;
  readonly reviewerId: string | null;
  readonly reviewedAt: Date | null;
  readonly claimedBy: string | null;
  readonly claimedUntil: Date | null;
  readonly width: number | null;
  readonly height: number | null;
  readonly durationMs: number | null;
  /** The frame's trace (W3C traceparent), when tracing recorded one; not every read selects it. */
  readonly traceParent?: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Set when retention or an erasure deleted its media (absent where a row is built before it is stored). */
  readonly purgedAt?: Date | null;
  // Review feedback and review policies; absent where a read does not select them.
  /** The decision's note to the agent. */
  readonly reviewNote?: string | null;
  /** The regions a rejection points at (jsonb, as written by the review service). */
  readonly reviewRegions?: unknown;
  /** A video rejection's time-coded items (jsonb, as written by the review service). */
  readonly reviewMoments?: unknown;
  /** The review policy rule that decided without a person. */
  readonly reviewRule?: string | null;
  /** The earlier frame this one is a revision of. */
  readonly revisionOf?: string | null;
  /** 1 high, 0 normal, -1 low (a review policy's `priority`). */
  readonly reviewPriority?: number;
  readonly dueAt?: Date | null;
  readonly approvalsRequired?: number;
  /** What a review policy did or suggested, and the values it read (jsonb). */
  readonly policyOutcome?: unknown;
  /** Reviewers who promoted it so far while it needs `approvalsRequired` of them. */
  readonly approvedBy?: readonly string[];
}

// A region is stored as the review API shows it (reviewRegions, jsonb): one type for both.
export type { ReviewMoment, ReviewRegion } from '@framedesk/contracts';

export interface SubmissionWithSlugs extends SubmissionRow {
  readonly agent: { readonly slug: string };
  readonly channel: { readonly slug: string };
}
