/**
 * The agent API's resources, typed from the contracts the server validates with
 * (`@framedesk/contracts`). Type-only imports: nothing of the server's runtime comes along.
 */
import type {
  ClickZone as ContractClickZone,
  FrameMetadata as ContractFrameMetadata,
  FrameSubmission,
  FrameSubmissionList,
  FrameSubmissionListQuery,
  MediaUpload as ContractMediaUpload,
  MediaUploadRequest as ContractMediaUploadRequest,
  Problem as ContractProblem,
} from '@framedesk/contracts';

export type Submission = FrameSubmission;
export type MediaUpload = ContractMediaUpload;
export type MediaUploadRequest = ContractMediaUploadRequest;
export type FrameMetadata = ContractFrameMetadata;
export type ClickZone = ContractClickZone;
export type Problem = ContractProblem;
export type Status = Submission['status'];
export type UploadProtocol = MediaUpload['upload_protocol'];
export type SubmissionFilters = Pick<FrameSubmissionListQuery, 'channel_slug' | 'status' | 'limit'>;
export type SubmissionPage = Pick<FrameSubmissionList, 'data' | 'next_cursor'>;

/** Statuses a submission never leaves by itself (DESIGN.md §3). */
export const FINAL_STATUSES: readonly Status[] = ['promoted', 'rejected', 'failed'];
