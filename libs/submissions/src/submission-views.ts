import {
  type ClickZone,
  decidedBy,
  type FrameSubmission,
  type MediaUpload,
  type ReviewMomentJson,
  type ReviewRegionJson,
} from '@framedesk/contracts';
import type { MediaUploadWithSubmission, SubmissionResourceRow } from '@framedesk/db';

/** Builds the signed URL of a delivered variant (or poster) of a submission. */
export type VariantUrl = (submissionId: string, name: string) => string;

interface StoredMetadata {
  readonly title?: string;
  readonly caption?: string;
  readonly click_zones?: ClickZone[];
  readonly external_ref?: string;
}

/**
 * The API resource of a submission (DESIGN.md §4): the same shape for create, replay, GET and list.
 * `madeOnPromotion`: variants an image in review or promoted lists before they are stored
 * (`public`, issue 39); their URL makes them or answers 202 until they exist.
 */
export function toFrameSubmission(
  row: SubmissionResourceRow,
  variantUrl: VariantUrl,
  madeOnPromotion: readonly string[] = [],
): FrameSubmission {
  const metadata = (row.metadata ?? {}) as StoredMetadata;
  const variants: Record<string, string> = {};
  if (row.mediaType === 'image' && !row.purgedAt && (row.status === 'needs_review' || row.status === 'promoted'))
    for (const name of madeOnPromotion) variants[name] = variantUrl(row.id, name);
  // A provider's own URL (a video's playback) as it is; what we store, through signed links.
  // A purged (or erased) frame serves nothing, even while its deletion is still under way.
  for (const media of row.purgedAt ? [] : row.media)
    variants[media.name] = media.kind === 'external' ? media.key : variantUrl(row.id, media.name);
  return {
    id: row.id,
    status: row.status,
    agent_slug: row.agent.slug,
    channel_slug: row.channel.slug,
    date: row.date,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    media_type: row.mediaType,
    visibility: row.visibility,
    title: metadata.title ?? row.title ?? null,
    caption: metadata.caption ?? null,
    click_zones: metadata.click_zones ?? [],
    external_ref: metadata.external_ref ?? null,
    media_upload_id: row.upload?.id ?? null,
    variants,
    failure:
      row.status === 'failed'
        ? { code: row.failureCode ?? 'processing_error', message: row.failureMessage ?? 'Processing failed.' }
        : null,
    review: row.reviewDecision && row.reviewedAt ? reviewOf(row, row.reviewedAt) : null,
    revision_of: row.revisionOf ?? null,
    purged_at: row.purgedAt?.toISOString() ?? null,
  };
}

/**
 * The decision as its agent reads it: what was decided, why, where in the picture, and whether a
 * person or a policy decided. Never who: no reviewer's id, email or name reaches an agent.
 */
function reviewOf(row: SubmissionResourceRow, decidedAt: Date): NonNullable<FrameSubmission['review']> {
  const at = decidedAt.toISOString();
  return {
    decision: row.reviewDecision as 'promoted' | 'rejected',
    reason: row.reviewReason,
    reviewed_at: at,
    decided_at: at,
    decided_by: decidedBy(row),
    rule: row.reviewRule ?? null,
    note: row.reviewNote ?? null,
    regions: Array.isArray(row.reviewRegions) ? (row.reviewRegions as ReviewRegionJson[]) : [],
    moments: Array.isArray(row.reviewMoments) ? (row.reviewMoments as ReviewMomentJson[]) : [],
  };
}

/** The API resource of an upload session; its status is its submission's. */
export function toMediaUpload(row: MediaUploadWithSubmission): MediaUpload {
  const { submission } = row;
  return {
    id: row.id,
    status: submission.status,
    provider: 'vendor_stream',
    upload_url: row.uploadUrl,
    upload_protocol: row.protocol === 'tus' ? 'tus' : 'basic',
    expires_at: row.expiresAt.toISOString(),
    submission_id: row.submissionId,
    filename: row.filename,
    content_type: row.contentType,
    byte_size: Number(row.byteSize),
    created_at: row.createdAt.toISOString(),
    failure:
      submission.status === 'failed'
        ? {
            code: submission.failureCode ?? 'processing_error',
            message: submission.failureMessage ?? 'Processing failed.',
          }
        : null,
  };
}
