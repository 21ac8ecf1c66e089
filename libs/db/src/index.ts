export { createDatabase, type Database, type DatabaseOptions } from './client';
export type { Repositories } from './repositories';
export type { AgentRow } from './agents.repository';
export type { ApiKeyRow, ApiKeyWithAgent } from './api-keys.repository';
export type { ChannelRow } from './channels.repository';
export type { ReviewerRow } from './reviewers.repository';
export type { MediaObjectKind, MediaObjectRow, NewMediaObject } from './media-objects.repository';
export type {
  Actor,
  NewSubmission,
  SubmissionRow,
  SubmissionWithSlugs,
  TransitionPatch,
  TransitionRequest,
  TransitionResult,
} from './submissions.repository';
