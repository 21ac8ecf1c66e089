import type {
  ReviewClaim,
  ReviewClickZone,
  ReviewEvent,
  ReviewFailedSubmission,
  ReviewPolicyView,
  ReviewQueueItem,
  ReviewMoment,
  ReviewRegion,
  ReviewSubmissionDetail,
  ReviewVersion,
  ReviewVideoMeasurement,
} from '@framedesk/contracts';
import { decidedBy } from '@framedesk/contracts';
import type { SubmissionDetailRow, SubmissionWithMedia, SubmissionWithSlugs } from '@framedesk/db';

/** Builds the URL a browser loads a stored media object from (signed by the caller's wiring). */
export type MediaUrlFn = (submissionId: string, name: string) => string;

/** The same, for a link issued to one reviewer (served only while that reviewer may see the frame). */
export type ViewerMediaUrlFn = (submissionId: string, name: string, viewer: string) => string;

// The shapes are the reviewer API's contract, shared with the workbench.
export type ClickZoneView = ReviewClickZone;
export type ClaimView = ReviewClaim;
export type QueueItemView = ReviewQueueItem;
export type EventView = ReviewEvent;
export type DetailView = ReviewSubmissionDetail;
export type FailedView = ReviewFailedSubmission;

type Emails = ReadonlyMap<string, string>;

function metadataOf(row: { metadata: unknown }): Record<string, unknown> {
  return row.metadata && typeof row.metadata === 'object' ? (row.metadata as Record<string, unknown>) : {};
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function clickZones(row: { metadata: unknown }): ClickZoneView[] {
  const zones = metadataOf(row)['click_zones'];
  if (!Array.isArray(zones)) return [];
  return zones.flatMap((z: Record<string, unknown>) =>
    typeof z?.['x'] === 'number' &&
    typeof z['y'] === 'number' &&
    typeof z['width'] === 'number' &&
    typeof z['height'] === 'number' &&
    typeof z['url'] === 'string'
      ? [{ x: z['x'], y: z['y'], width: z['width'], height: z['height'], url: z['url'], label: text(z['label']) }]
      : [],
  );
}

/** A purged (or erased) frame serves nothing, even while its deletion is still under way. */
const servedMedia = (row: SubmissionWithMedia) => (row.purgedAt ? [] : row.media);

function mediaNamed(row: SubmissionWithMedia, kind: string, names: readonly string[]): string | null {
  for (const name of names) if (servedMedia(row).some((m) => m.kind === kind && m.name === name)) return name;
  return null;
}

/**
 * Where a reviewer plays a video: originals are not public media, so the reviewer's session streams
 * them (see ReviewService.original); a provider's video plays from its playback address.
 */
function videoUrlOf(row: SubmissionWithMedia): string | null {
  if (row.mediaType !== 'video') return null;
  if (mediaNamed(row, 'original', ['original'])) return `/review/submissions/${row.id}/original`;
  return servedMedia(row).find((m) => m.kind === 'external' && m.name === 'playback')?.key ?? null;
}

export function claimView(
  row: { claimedBy: string | null; claimedUntil: Date | null },
  me: string,
  emails: Emails,
  now: Date,
): ClaimView | null {
  if (!row.claimedBy || !row.claimedUntil || row.claimedUntil <= now) return null;
  return {
    reviewer_id: row.claimedBy,
    reviewer_email: emails.get(row.claimedBy) ?? null,
    until: row.claimedUntil.toISOString(),
    mine: row.claimedBy === me,
  };
}

export function queueItemView(
  row: SubmissionWithMedia,
  mediaUrl: MediaUrlFn,
  me: string,
  emails: Emails,
  now: Date,
): QueueItemView {
  const thumb = mediaNamed(row, 'variant', ['thumbnail', 'preview', 'public']);
  const poster = mediaNamed(row, 'poster', ['poster']);
  const name = thumb ?? poster;
  return {
    id: row.id,
    title: row.title ?? text(metadataOf(row)['title']),
    channel_slug: row.channel.slug,
    agent_slug: row.agent.slug,
    media_type: row.mediaType,
    date: row.date,
    visibility: row.visibility,
    created_at: row.createdAt.toISOString(),
    thumbnail_url: name ? mediaUrl(row.id, name) : null,
    claim: claimView(row, me, emails, now),
    ...policyFields(row),
  };
}

export function detailView(
  row: SubmissionDetailRow,
  mediaUrl: MediaUrlFn,
  me: string,
  emails: Emails,
  now: Date,
): Omit<DetailView, 'similar' | 'internal_notes'> {
  const meta = metadataOf(row);
  const image =
    mediaNamed(row, 'variant', ['preview', 'public']) ??
    (row.mediaType === 'image' ? mediaNamed(row, 'original', ['original']) : null);
  const poster = mediaNamed(row, 'poster', ['poster']);
  const video = videoUrlOf(row);
  return {
    ...queueItemView(row, mediaUrl, me, emails, now),
    status: row.status,
    caption: text(meta['caption']),
    external_ref: text(meta['external_ref']),
    updated_at: row.updatedAt.toISOString(),
    width: row.width,
    height: row.height,
    duration_ms: row.durationMs,
    click_zones: clickZones(row),
    image_url: image ? mediaUrl(row.id, image) : null,
    poster_url: poster ? mediaUrl(row.id, poster) : null,
    video_url: video,
    measurement: measurementOf(row),
    variants: Object.fromEntries(
      servedMedia(row)
        .filter((m) => m.kind === 'variant')
        .map((m) => [m.name, mediaUrl(row.id, m.name)]),
    ),
    failure: row.failureCode ? { code: row.failureCode, message: row.failureMessage } : null,
    purged_at: row.purgedAt?.toISOString() ?? null,
    review: row.reviewDecision
      ? {
          decision: row.reviewDecision,
          reason: row.reviewReason,
          reviewed_at: row.reviewedAt?.toISOString() ?? null,
          reviewer_email: row.reviewerId ? (emails.get(row.reviewerId) ?? null) : null,
          note: row.reviewNote ?? null,
          regions: regionsOf(row.reviewRegions),
          moments: momentsOf(row.reviewMoments),
          rule: row.reviewRule ?? null,
        }
      : null,
    events: row.events.map((e) => ({
      id: String(e.id),
      type: e.type,
      from: e.fromStatus,
      to: e.toStatus,
      actor_type: e.actorType,
      actor:
        e.actorType === 'reviewer' && e.actorId
          ? (emails.get(e.actorId) ?? e.actorId)
          : e.actorType === 'agent'
            ? row.agent.slug
            : e.actorId,
      reason: e.reason,
      ...eventFeedback(e.data),
      created_at: e.createdAt.toISOString(),
      rule: ruleOf(e.data),
    })),
  };
}

/** One frame of a version stack, with its decision and feedback. */
export function versionView(row: SubmissionWithMedia, mediaUrl: MediaUrlFn, currentId: string): ReviewVersion {
  const image = mediaNamed(row, 'variant', ['preview', 'public']) ?? mediaNamed(row, 'poster', ['poster']) ?? null;
  const thumb = mediaNamed(row, 'variant', ['thumbnail', 'preview', 'public']) ?? mediaNamed(row, 'poster', ['poster']);
  const poster = mediaNamed(row, 'poster', ['poster']);
  return {
    id: row.id,
    title: row.title ?? text(metadataOf(row)['title']),
    status: row.status,
    created_at: row.createdAt.toISOString(),
    revision_of: row.revisionOf ?? null,
    current: row.id === currentId,
    image_url: image ? mediaUrl(row.id, image) : null,
    thumbnail_url: thumb ? mediaUrl(row.id, thumb) : null,
    width: row.width,
    height: row.height,
    media_type: row.mediaType,
    video_url: videoUrlOf(row),
    poster_url: poster ? mediaUrl(row.id, poster) : null,
    duration_ms: row.durationMs ?? null,
    review: row.reviewDecision
      ? {
          decision: row.reviewDecision,
          reason: row.reviewReason,
          note: row.reviewNote ?? null,
          regions: regionsOf(row.reviewRegions),
          moments: momentsOf(row.reviewMoments),
          reviewed_at: row.reviewedAt?.toISOString() ?? null,
          decided_by: decidedBy(row),
        }
      : null,
  };
}

/** A video's measurement as recorded in `signals` (libs/media videoSignals); null when not measured. */
export function measurementOf(row: { mediaType: string; signals?: unknown }): ReviewVideoMeasurement | null {
  const s = row.signals;
  if (row.mediaType !== 'video' || !s || typeof s !== 'object') return null;
  const m = s as Partial<ReviewVideoMeasurement>;
  return typeof m.black_share === 'number' && m.stretches ? (s as ReviewVideoMeasurement) : null;
}

/** A video's time-coded items as stored (jsonb written by the review service). */
export function momentsOf(value: unknown): ReviewMoment[] {
  return Array.isArray(value) ? (value as ReviewMoment[]) : [];
}

/** Regions as stored (jsonb written by the review service). */
export function regionsOf(value: unknown): ReviewRegion[] {
  return Array.isArray(value) ? (value as ReviewRegion[]) : [];
}

/** A decision event's note and regions, when it has them. */
function eventFeedback(data: unknown): { note?: string; regions?: ReviewRegion[]; moments?: ReviewMoment[] } {
  const d = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  return {
    ...(typeof d['note'] === 'string' ? { note: d['note'] } : {}),
    ...(Array.isArray(d['regions']) ? { regions: regionsOf(d['regions']) } : {}),
    ...(Array.isArray(d['moments']) ? { moments: momentsOf(d['moments']) } : {}),
  };
}

export function failedView(row: SubmissionWithSlugs): FailedView {
  return {
    id: row.id,
    title: row.title ?? text(metadataOf(row)['title']),
    channel_slug: row.channel.slug,
    agent_slug: row.agent.slug,
    media_type: row.mediaType,
    failure_code: row.failureCode,
    failure_message: row.failureMessage,
    failed_at: row.updatedAt.toISOString(),
  };
}

const PRIORITY_NAMES = { 1: 'high', 0: 'normal', [-1]: 'low' } as const;

function ruleOf(data: unknown): string | null {
  const rule = (data as { rule?: unknown } | null)?.rule;
  return typeof rule === 'string' ? rule : null;
}

/** Review policies (docs/policies.md): approvals, priority, due and why the frame is here. */
export function policyFields(
  row: Pick<SubmissionWithMedia, 'approvalsRequired' | 'approvedBy' | 'reviewPriority' | 'dueAt' | 'policyOutcome'>,
): Pick<QueueItemView, 'approvals' | 'priority' | 'due_at' | 'policy'> {
  const required = row.approvalsRequired ?? 1;
  return {
    approvals: required > 1 ? { required, approved: row.approvedBy?.length ?? 0 } : null,
    priority: PRIORITY_NAMES[(row.reviewPriority ?? 0) as 1 | 0 | -1] ?? 'normal',
    due_at: row.dueAt?.toISOString() ?? null,
    policy: (row.policyOutcome ?? null) as ReviewPolicyView | null,
  };
}
