export { createDatabase, type Database, type DatabaseOptions, type TransitionOptions } from './client';
export type { ReplicaStatus } from './read-replica';
export type { Repositories } from './repositories';
export { ALL_CHANNELS, type ChannelScope } from './channel-scope';
export { databaseUnreachableReason } from './unreachable';
export type { AccountChange, AccountEventRow, ReviewerListRow } from './accounts.repository';
export {
  ACCESS_CHANGES_CHANNEL,
  accessChangeListener,
  type AccessChangeListener,
  EVERY_REVIEWER,
} from './access-changes';
export type { AgentRow } from './agents.repository';
export type { ApiKeyRow, ApiKeyWithAgent } from './api-keys.repository';
export type { ChannelRow } from './channels.repository';
export {
  bandMasks,
  DEFAULT_SIMILARITY,
  fingerprintBands,
  type FingerprintRow,
  MAX_BAND_CANDIDATES,
  MAX_SIMILAR,
  type SimilaritySettings,
  type SimilarMatch,
  type UnfingerprintedRow,
} from './fingerprints.repository';
export type { NewReviewer, ReviewerRow } from './reviewers.repository';
export type { ReviewNoteRow } from './feedback.repository';
export type { AgentRejectionRow } from './agent-feedback.repository';
export type { AuditPosition, AuditRow, AuditWindow } from './audit.repository';
export type { ReviewerSessionRow, ReviewerSessionWithReviewer } from './reviewer-sessions.repository';
export type {
  ClaimResult,
  MediaRef,
  ReviewQueueFilter,
  SubmissionDetailRow,
  SubmissionEventRow,
  SubmissionWithMedia,
} from './review.repository';
export type { MediaObjectKind, MediaObjectRow, NewMediaObject } from './media-objects.repository';
export type { IdempotencyClaim, IdempotencyClaimInput, IdempotencyRecordRow } from './idempotency.repository';
export type {
  MediaUploadRow,
  MediaUploadWithSubmission,
  NewMediaUpload,
  OpenUploads,
} from './media-uploads.repository';
export type {
  Actor,
  NewSubmission,
  ReviewMoment,
  ReviewRegion,
  SubmissionRow,
  StoredOriginal,
  SubmissionWithSlugs,
  TransitionPatch,
  TransitionRequest,
  TransitionResult,
} from './submissions.repository';
export type { ResourceListQuery, SubmissionResourceRow } from './submission-resources';
export type { NewImageSubmission } from './image-ingest.repository';
export type { ChannelRetentionRow, MediaHolder, RetentionChange } from './retention.repository';
export type { ErasureAction, ErasureCounts, ErasureFilter } from './erasure.repository';
export type { VerifiedSubmission } from './media-verify.repository';
export type {
  AgentDecisionCounts,
  ChannelPolicyRow,
  DecidedFrameRow,
  FingerprintWithHistory,
  NearestDecided,
  PolicyChangeRow,
} from './policies.repository';
export { APPROVAL_EVENT, TEAM_PAUSE_SECONDS, type TeamStatsRow } from './team-stats.repository';
export type { DeadRun, RunStart } from './processing-runs.repository';
