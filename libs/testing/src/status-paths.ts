import type { SubmissionStatus } from '@framedesk/domain';

/**
 * The transitions that take a new frame (`received`, or a video `waiting_for_upload`) to each
 * status, for specs that seed frames straight into the database.
 */
export const STATUS_PATHS: Readonly<Record<SubmissionStatus, readonly SubmissionStatus[]>> = {
  received: [],
  waiting_for_upload: [],
  media_processing: ['media_processing'],
  needs_review: ['media_processing', 'needs_review'],
  promoted: ['media_processing', 'needs_review', 'promoted'],
  rejected: ['media_processing', 'needs_review', 'rejected'],
  failed: ['failed'],
};

/** Who takes a seeded frame to `to`: a reviewer decides, the system does the rest. */
export const seedActorType = (to: SubmissionStatus): 'reviewer' | 'system' =>
  to === 'promoted' || to === 'rejected' ? 'reviewer' : 'system';
