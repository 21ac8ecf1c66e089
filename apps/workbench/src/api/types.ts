// The review API's JSON (apps/api/src/routes/review.routes.ts, libs/review views).
export type MediaType = 'image' | 'video';
export type Visibility = 'draft' | 'team_visible' | 'promotion_eligible';
export const VISIBILITIES: readonly Visibility[] = ['draft', 'team_visible', 'promotion_eligible'];

export interface Session {
  readonly reviewer: { readonly id: string; readonly email: string; readonly name: string | null };
  readonly csrf_token: string;
  readonly expires_at: string;
  readonly reject_reasons?: readonly string[];
}

export interface Claim {
  readonly reviewer_id: string;
  readonly reviewer_email: string | null;
  readonly until: string;
  readonly mine: boolean;
}

export interface QueueItem {
  readonly id: string;
  readonly title: string | null;
  readonly channel_slug: string;
  readonly agent_slug: string;
  readonly media_type: MediaType;
  readonly date: string;
  readonly visibility: Visibility;
  readonly created_at: string;
  readonly thumbnail_url: string | null;
  readonly claim: Claim | null;
}

export interface QueuePage {
  readonly items: QueueItem[];
  readonly next_cursor: string | null;
}

export interface ChannelCount {
  readonly slug: string;
  readonly name: string;
  readonly needs_review: number;
}

export interface ClickZone {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly url: string;
  readonly label: string | null;
}

export interface SubmissionEvent {
  readonly id: string;
  readonly type: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly actor_type: string;
  readonly actor: string | null;
  readonly reason: string | null;
  readonly created_at: string;
}

export interface SubmissionDetail extends QueueItem {
  readonly status: string;
  readonly caption: string | null;
  readonly external_ref: string | null;
  readonly updated_at: string;
  readonly width: number | null;
  readonly height: number | null;
  readonly duration_ms: number | null;
  readonly click_zones: ClickZone[];
  readonly image_url: string | null;
  readonly poster_url: string | null;
  readonly video_url: string | null;
  readonly failure: { readonly code: string; readonly message: string | null } | null;
  readonly review: { readonly decision: string; readonly reason: string | null; readonly reviewed_at: string | null; readonly reviewer_email: string | null } | null;
  readonly events: SubmissionEvent[];
}

export type DecisionInput = { readonly decision: 'promote' } | { readonly decision: 'reject'; readonly reason: string; readonly note?: string };

export interface TimelinePage {
  readonly channel: { readonly slug: string; readonly name: string };
  readonly items: (QueueItem & { readonly promoted_at: string | null })[];
  readonly next_cursor: string | null;
}

export interface QueueDepth {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

export interface FailedSubmission {
  readonly id: string;
  readonly title: string | null;
  readonly channel_slug: string;
  readonly agent_slug: string;
  readonly media_type: MediaType;
  readonly failure_code: string | null;
  readonly failure_message: string | null;
  readonly failed_at: string;
}

export interface Ops {
  readonly queues: Record<string, QueueDepth>;
  readonly submissions_by_status: Record<string, number>;
  readonly recently_failed: FailedSubmission[];
}

export const DEFAULT_REJECT_REASONS = [
  'Low quality',
  'Off-topic for the channel',
  'Broken or misleading click zones',
  'Inappropriate content',
  'Duplicate',
  'Other',
] as const;
