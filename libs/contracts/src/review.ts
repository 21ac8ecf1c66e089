/**
 * The reviewer API's JSON (`/review/*`): built by libs/review, read by the workbench. Types only,
 * plus the reject reasons both sides must agree on.
 */
export type ReviewMediaType = 'image' | 'video';
export type ReviewVisibility = 'draft' | 'team_visible' | 'promotion_eligible';

/** The reject reason that names the earlier frame it duplicates (`duplicate_of`). */
export const DUPLICATE_OF_EARLIER_FRAME = 'Duplicate of an earlier frame';

/** Reasons a reviewer picks from when rejecting; free text adds detail (required for "Other"). */
export const REJECT_REASONS = [
  'Low quality',
  'Off-topic for the channel',
  'Broken or misleading click zones',
  'Inappropriate content',
  'Duplicate',
  DUPLICATE_OF_EARLIER_FRAME,
  'Other',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** admin: every channel, ops, retries and people; reviewer: only the channels they are a member of. */
export type ReviewRole = 'admin' | 'reviewer';

export interface ReviewSession {
  readonly reviewer: {
    readonly id: string;
    readonly email: string;
    readonly name: string | null;
    readonly role: ReviewRole;
  };
  readonly csrf_token: string;
  readonly expires_at: string;
  readonly reject_reasons?: readonly string[];
}

export interface ReviewClaim {
  readonly reviewer_id: string;
  readonly reviewer_email: string | null;
  readonly until: string;
  readonly mine: boolean;
}

export interface ReviewQueueItem {
  readonly id: string;
  readonly title: string | null;
  readonly channel_slug: string;
  readonly agent_slug: string;
  readonly media_type: ReviewMediaType;
  readonly date: string;
  readonly visibility: ReviewVisibility;
  readonly created_at: string;
  readonly thumbnail_url: string | null;
  readonly claim: ReviewClaim | null;
  /** Queue pages: how many earlier frames of the channel look like this one (at most 10). */
  readonly similar_count?: number;
  /** Review policies (docs/policies.md): approvals needed and given ("1 of 2"); null when one promote decides. */
  readonly approvals?: { readonly required: number; readonly approved: number } | null;
  readonly priority?: 'high' | 'normal' | 'low';
  /** When a person should have decided it (a policy's `due`); null without one. */
  readonly due_at?: string | null;
  /** Why it is here: what the channel's review policy did or suggested and the values it read. */
  readonly policy?: ReviewPolicyView | null;
}

/** What a review policy did with a frame, or would have done (a sample), and what it read. */
export interface ReviewPolicyView {
  /** The rule that matched; null when none did. */
  readonly rule: string | null;
  readonly action: 'promote' | 'reject' | 'review' | null;
  readonly reason?: string;
  readonly sampled?: boolean;
  readonly suggestion?: 'promote' | 'reject';
  readonly held?: string;
  readonly signals: Readonly<Record<string, unknown>> | null;
  readonly scores?: Readonly<Record<string, number>>;
}

/** An earlier frame of the same channel whose perceptual fingerprint is close to this one's. */
export interface ReviewSimilarFrame {
  readonly id: string;
  readonly title: string | null;
  readonly status: string;
  readonly channel_slug: string;
  /** Differing bits of the 64-bit fingerprints: 0 is the same picture. */
  readonly distance: number;
  readonly thumbnail_url: string | null;
  readonly created_at: string;
}

export interface ReviewQueuePage {
  readonly items: ReviewQueueItem[];
  readonly next_cursor: string | null;
}

export interface ReviewChannelCount {
  readonly slug: string;
  readonly name: string;
  readonly needs_review: number;
  /** The channel's reject reasons (its own list, or the default). */
  readonly reject_reasons?: readonly string[];
}

export interface ReviewClickZone {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly url: string;
  readonly label: string | null;
}

/** A box on the original a rejection points at: fractions (0–1) of its width and height, origin top left. */
export interface ReviewRegion {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly label: string;
}

/** A box on a video's frame a time-coded item points at: fractions (0–1), origin top left. */
export interface ReviewMomentRegion {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * A time-coded feedback item on a video (docs/video.md, "Feedback pinned to a moment"): a moment
 * (`at`) or a stretch (`start`, `end`), in seconds from the start, with a label and optionally a
 * region on that frame.
 */
export type ReviewMoment =
  | { readonly at: number; readonly label: string; readonly region?: ReviewMomentRegion }
  | { readonly start: number; readonly end: number; readonly label: string; readonly region?: ReviewMomentRegion };

export interface ReviewEvent {
  readonly id: string;
  readonly type: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly actor_type: string;
  readonly actor: string | null;
  readonly reason: string | null;
  /** A decision's note to the agent. */
  readonly note?: string | null;
  /** A decision's regions (empty when none). */
  readonly regions?: ReviewRegion[];
  /** A video decision's time-coded items (absent when none). */
  readonly moments?: ReviewMoment[];
  readonly created_at: string;
  /** The review policy rule an event of the policy's names (an automatic decision: actor system); null otherwise. */
  readonly rule?: string | null;
}

/** One frame of a version stack (frames linked by the agent's `metadata.revision_of`). */
export interface ReviewVersion {
  readonly id: string;
  readonly title: string | null;
  readonly status: string;
  readonly created_at: string;
  /** The earlier frame this one revises. */
  readonly revision_of: string | null;
  /** The frame the detail is about. */
  readonly current: boolean;
  readonly image_url: string | null;
  readonly thumbnail_url: string | null;
  readonly width: number | null;
  readonly height: number | null;
  readonly media_type: string;
  /** A video's address for the reviewer's player (as the detail's `video_url`); null for an image. */
  readonly video_url: string | null;
  readonly poster_url: string | null;
  readonly duration_ms: number | null;
  /** Its decision and the feedback it gave (null while undecided). */
  readonly review: {
    readonly decision: string;
    readonly reason: string | null;
    readonly note: string | null;
    readonly regions: ReviewRegion[];
    /** A video's time-coded items (empty when none). */
    readonly moments: ReviewMoment[];
    readonly reviewed_at: string | null;
    readonly decided_by: 'person' | 'policy' | 'channel';
  } | null;
}

/** A reviewer's note on a frame for the other reviewers: never shown to the agent. */
export interface ReviewInternalNote {
  readonly id: string;
  readonly author_email: string;
  readonly body: string;
  /** A video's time-coded items the note points at (the API always sends it; empty when none). */
  readonly moments?: ReviewMoment[];
  readonly created_at: string;
}

/** One measured stretch of a video, in seconds. */
export interface ReviewStretch {
  readonly start: number;
  readonly end: number;
}

/**
 * What the worker measured over a video (docs/video.md, "Measured stretches"): the values a policy
 * reads and the stretches to draw on the player's timeline. `silent_*` absent without audio.
 */
export interface ReviewVideoMeasurement {
  readonly black_seconds: number;
  readonly black_share: number;
  readonly frozen_seconds: number;
  readonly frozen_share: number;
  readonly silent_seconds?: number;
  readonly silent_share?: number;
  readonly has_audio: boolean;
  /** Frames per second, when the worker read them: the player steps and shows time by this frame. */
  readonly frame_rate?: number;
  readonly stretches: {
    readonly black: ReviewStretch[];
    readonly frozen: ReviewStretch[];
    readonly silent?: ReviewStretch[];
  };
}

export interface ReviewSubmissionDetail extends ReviewQueueItem {
  readonly status: string;
  readonly caption: string | null;
  readonly external_ref: string | null;
  readonly updated_at: string;
  readonly width: number | null;
  readonly height: number | null;
  readonly duration_ms: number | null;
  readonly click_zones: ReviewClickZone[];
  /** The image to review at screen size (preview, else public, else the original). */
  readonly image_url: string | null;
  readonly poster_url: string | null;
  readonly video_url: string | null;
  /** A video's measurement by the worker; null for an image or a video not measured (docs/video.md). */
  readonly measurement?: ReviewVideoMeasurement | null;
  /** Signed URLs by variant name; a local video's `sprite` and `sprite_vtt` for scrubbing (docs/video.md). */
  readonly variants: Record<string, string>;
  readonly failure: { readonly code: string; readonly message: string | null } | null;
  readonly review: {
    readonly decision: string;
    readonly reason: string | null;
    readonly reviewed_at: string | null;
    readonly reviewer_email: string | null;
    /** The note to the agent. */
    readonly note: string | null;
    readonly regions: ReviewRegion[];
    /** A video's time-coded items (empty when none). */
    readonly moments: ReviewMoment[];
    /** The review policy rule that decided without a person; null for a person's decision. */
    readonly rule: string | null;
  } | null;
  readonly events: ReviewEvent[];
  /** Reviewers' internal notes, oldest first. */
  readonly internal_notes: ReviewInternalNote[];
  /** The earlier frame this one revises (`metadata.revision_of`). */
  readonly revision_of?: string | null;
  /** Its version stack, oldest first, itself included (`current`); empty when it has no other version. */
  readonly versions?: ReviewVersion[];
  /** The reasons a rejection of this frame may give: its channel's list. */
  readonly reject_reasons?: readonly string[];
  /** When retention or an erasure deleted its media (then no image, poster or video is left); null while kept. */
  readonly purged_at: string | null;
  /** Near-duplicates: earlier frames of the channel, closest first, at most 10. */
  readonly similar: ReviewSimilarFrame[];
}

export type ReviewDecisionInput =
  | { readonly decision: 'promote' }
  | {
      readonly decision: 'reject';
      readonly reason: string;
      readonly note?: string;
      readonly regions?: readonly ReviewRegion[];
      /** A video's time-coded items (at most 20; times within the video). */
      readonly moments?: readonly ReviewMoment[];
      /** With the reason "Duplicate of an earlier frame": the frame this one duplicates. */
      readonly duplicate_of?: string;
    };

/** One frame's answer to `POST /review/decisions`. */
export type ReviewBatchResult =
  | { readonly id: string; readonly outcome: 'promoted' | 'rejected' | 'approved' }
  | { readonly id: string; readonly outcome: 'failed'; readonly code: string; readonly detail: string };

export interface ReviewTimelinePage {
  readonly channel: { readonly slug: string; readonly name: string };
  readonly items: (ReviewQueueItem & { readonly promoted_at: string | null })[];
  readonly next_cursor: string | null;
}

export interface ReviewQueueDepth {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

export interface ReviewFailedSubmission {
  readonly id: string;
  readonly title: string | null;
  readonly channel_slug: string;
  readonly agent_slug: string;
  readonly media_type: ReviewMediaType;
  readonly failure_code: string | null;
  readonly failure_message: string | null;
  readonly failed_at: string;
}

export interface ReviewOps {
  readonly queues: Record<string, ReviewQueueDepth>;
  readonly submissions_by_status: Record<string, number>;
  readonly recently_failed: ReviewFailedSubmission[];
  /** Every failure code, for the failed list's filter. */
  readonly failure_codes?: readonly string[];
}

/** `GET /review/sign-in`: what the sign-in page offers. */
export interface ReviewSignInOptions {
  readonly password_login: boolean;
  /** Single sign-on: the button's label and where it starts. */
  readonly sso: { readonly name: string; readonly url: string } | null;
}

/**
 * `POST /review/invite/preview`: whose invite, and how it is accepted: by choosing a password, or
 * (PASSWORD_LOGIN=false) by signing in with the identity provider.
 */
export type ReviewInvitePreview =
  | { readonly email: string; readonly accept_with: 'password' }
  | {
      readonly email: string;
      readonly accept_with: 'sso';
      readonly sso: { readonly name: string; readonly url: string } | null;
    };

/** A reviewer on the People screen (admins only) and in `reviewer list --json`. */
export interface ReviewPerson {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: ReviewRole;
  readonly channels: string[];
  readonly created_at: string;
  readonly disabled_at: string | null;
  readonly last_seen_at: string | null;
  /** False: signs in through single sign-on only, or has not used an invite link yet. */
  readonly has_password: boolean;
  readonly sessions: number;
}

/** A one-time link to choose a password (no mail is sent: the admin hands it over). */
export interface ReviewInvite {
  readonly url: string;
  readonly expires_at: string;
}

/** `GET /review/stats`: the reviewer's own numbers today (UTC) and the backlog they can see. */
export interface ReviewStats {
  readonly decisions_today: number;
  /** Median seconds between consecutive decisions today (pauses over 15 minutes left out); null before two. */
  readonly median_seconds_per_decision: number | null;
  readonly backlog: {
    /** The channel asked for (`?channel=`), or null for every channel of the reviewer. */
    readonly channel: string | null;
    readonly waiting: number;
    readonly oldest_created_at: string | null;
  };
}

/** One reviewer's numbers in `GET /review/team` (docs/workbench.md, "Team"). */
export interface ReviewTeamMember {
  readonly reviewer_id: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: ReviewRole;
  readonly disabled: boolean;
  /** Promotes (including a first approval of a frame that asks for two) and rejects, one per frame. */
  readonly decisions: number;
  readonly promoted: number;
  readonly rejected: number;
  /**
   * Median seconds a decision took, to a tenth: each decision is timed from the reviewer's previous
   * act (their claim of a frame or their previous decision); times over 15 minutes (pauses) or with
   * no act before them are left out. Null when none is left.
   */
  readonly median_seconds_per_decision: number | null;
  /** How many decisions the median is taken over. */
  readonly timed_decisions: number;
  /** Frames they approved (of those asking for two approvals) that another reviewer then rejected. */
  readonly promoted_then_rejected: number;
  /** Decisions on frames a review policy sampled for a person, and how many agreed with the policy's suggestion. */
  readonly policy_agreement: { readonly agreed: number; readonly total: number };
}

/** `GET /review/team` (admins only): per reviewer, decisions made in [since, until). */
export interface ReviewTeamStats {
  readonly since: string;
  readonly until: string;
  readonly reviewers: ReviewTeamMember[];
}
