import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { API_MEDIA_TYPES, API_SUBMISSION_STATUSES, API_VISIBILITIES, UPLOAD_PROTOCOLS } from './values';

/**
 * The agent API's request and response shapes (DESIGN.md §4) as JSON Schema. The API validates
 * requests with these, the OpenAPI document is generated from them, and the client and the
 * workbench take their types from them. Browser-safe: no Node imports here.
 */
const stringEnum = <const T extends readonly string[]>(values: T, description?: string): TUnsafe<T[number]> =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);

export const SlugSchema = Type.String({
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  maxLength: 64,
  description: 'Lowercase letters and digits in dash-separated words, at most 64 characters',
});
export const FrameDateSchema = Type.String({
  pattern: '^[0-9]{8}$',
  description: 'The frame day, YYYYMMDD (a real calendar date)',
});
export const TimestampSchema = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
export const SubmissionStatusSchema = stringEnum(API_SUBMISSION_STATUSES, 'Status (DESIGN.md §3)');
export const SubmissionIdSchema = Type.String({
  pattern: '^sub_[0-9A-Za-z]{22}$',
  description: 'A frame submission id',
});
export const UploadIdSchema = Type.String({ pattern: '^upl_[0-9A-Za-z]{22}$', description: 'A media upload id' });

/** A link drawn over the frame; coordinates are fractions 0–1 of the frame's width and height. */
export const ClickZoneSchema = Type.Object(
  {
    x: Type.Number({ minimum: 0, maximum: 1, description: 'Left edge, fraction of the frame width' }),
    y: Type.Number({ minimum: 0, maximum: 1, description: 'Top edge, fraction of the frame height' }),
    width: Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'Fraction of the frame width; x + width ≤ 1' }),
    height: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      description: 'Fraction of the frame height; y + height ≤ 1',
    }),
    url: Type.String({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      maxLength: 2048,
      description: 'http(s) address the zone links to',
    }),
    label: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type ClickZone = Static<typeof ClickZoneSchema>;

/** Limits that come from the project configuration and shape the schemas. */
export interface ContractLimits {
  /** media.click_zones_max */
  readonly clickZonesMax: number;
}

const describedFields = (limits: ContractLimits) => ({
  title: Type.Optional(Type.String({ maxLength: 200 })),
  caption: Type.Optional(Type.String({ maxLength: 2000 })),
  click_zones: Type.Optional(
    Type.Array(ClickZoneSchema, {
      maxItems: limits.clickZonesMax,
      description: `At most ${limits.clickZonesMax} zones (media.click_zones_max)`,
    }),
  ),
  external_ref: Type.Optional(Type.String({ maxLength: 200, description: "The agent's own reference" })),
});

/** `metadata.revision_of`, on a frame and on a video alike (docs/api.md, "Revisions"). */
const revisionOfField = () =>
  Type.Optional({
    ...SubmissionIdSchema,
    description:
      'The earlier frame this one replaces: a frame of this agent, in the same channel, already rejected or promoted (else 422 invalid_revision)',
  } as typeof SubmissionIdSchema);

/** The `metadata` part of POST /v1/frame-submissions (DESIGN.md §4 field table). */
export function frameMetadataSchema(limits: ContractLimits) {
  return Type.Object(
    {
      agent_slug: {
        ...SlugSchema,
        description: "Slug of the submitting agent; must be the API key's agent",
      } as typeof SlugSchema,
      channel_slug: {
        ...SlugSchema,
        description: 'Slug of the target channel; the agent must be allowed on it',
      } as typeof SlugSchema,
      date: FrameDateSchema,
      ...describedFields(limits),
      revision_of: revisionOfField(),
    },
    { additionalProperties: false },
  );
}
export type FrameMetadata = Static<ReturnType<typeof frameMetadataSchema>>;

/** Optional descriptive metadata of a video, sent with POST /v1/media-uploads. */
export function uploadMetadataSchema(limits: ContractLimits) {
  return Type.Object({ ...describedFields(limits), revision_of: revisionOfField() }, { additionalProperties: false });
}

/** JSON body of POST /v1/media-uploads. */
export function mediaUploadRequestSchema(limits: ContractLimits) {
  return Type.Object(
    {
      agent_slug: SlugSchema,
      channel_slug: SlugSchema,
      media_type: stringEnum(['video'] as const, 'Only video uses upload sessions in V1'),
      filename: Type.String({ minLength: 1, maxLength: 255 }),
      content_type: Type.String({ minLength: 1, maxLength: 255, description: 'One of media.allowed_video_mime_types' }),
      byte_size: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
      date: Type.Optional({
        ...FrameDateSchema,
        description: 'YYYYMMDD; default today (UTC)',
      } as typeof FrameDateSchema),
      metadata: Type.Optional(uploadMetadataSchema(limits)),
    },
    { additionalProperties: false },
  );
}
export type MediaUploadRequest = Static<ReturnType<typeof mediaUploadRequestSchema>>;

export const FailureSchema = Type.Object(
  { code: Type.String(), message: Type.String() },
  { additionalProperties: false },
);
/** A box on the original a rejection points at: fractions (0–1) of its width and height, origin top left. */
export const ReviewRegionSchema = Type.Object(
  {
    x: Type.Number({ minimum: 0, maximum: 1 }),
    y: Type.Number({ minimum: 0, maximum: 1 }),
    width: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    height: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    label: Type.String({ maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type ReviewRegionJson = Static<typeof ReviewRegionSchema>;

/** Who decided a frame: a person, a rule of the review policy, or the channel's no-review default. */
export const DECIDED_BY = ['person', 'policy', 'channel'] as const;
export type DecidedBy = (typeof DECIDED_BY)[number];

/**
 * A decision's `decided_by`: a reviewer's is `person`; one without a person is `policy` when a
 * rule decided (review_rule), else `channel` (promoted because the channel does not require review).
 */
export function decidedBy(row: { readonly reviewerId: string | null; readonly reviewRule?: string | null }): DecidedBy {
  if (row.reviewerId) return 'person';
  return row.reviewRule ? 'policy' : 'channel';
}

const MomentRegionSchema = Type.Object(
  {
    x: Type.Number({ minimum: 0, maximum: 1 }),
    y: Type.Number({ minimum: 0, maximum: 1 }),
    width: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    height: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
  },
  { additionalProperties: false, description: 'A box on that frame, fractions (0–1), origin top left' },
);
/** A video's time-coded feedback item: a moment (`at`) or a stretch (`start`, `end`), in seconds. */
export const ReviewMomentSchema = Type.Union(
  [
    Type.Object(
      {
        at: Type.Number({ minimum: 0, description: 'Seconds from the start' }),
        label: Type.String({ maxLength: 200 }),
        region: Type.Optional(MomentRegionSchema),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        start: Type.Number({ minimum: 0, description: 'Seconds from the start' }),
        end: Type.Number({ minimum: 0, description: 'Seconds from the start; not before start' }),
        label: Type.String({ maxLength: 200 }),
        region: Type.Optional(MomentRegionSchema),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'A time-coded feedback item on a video (docs/video.md)' },
);
export type ReviewMomentJson = Static<typeof ReviewMomentSchema>;

export const ReviewSchema = Type.Object(
  {
    decision: stringEnum(['promoted', 'rejected'] as const),
    reason: nullable(Type.String()),
    reviewed_at: TimestampSchema,
    decided_at: { ...TimestampSchema, description: 'When the frame was decided (the same instant as reviewed_at)' },
    decided_by: stringEnum(
      DECIDED_BY,
      "'person': a reviewer decided (who is never shown); 'policy': a rule of the channel's review policy decided (rule names it); 'channel': the channel does not require review (approval_defaults.requires_review = false), so the frame was promoted once processed, by no rule and no person",
    ),
    rule: nullable(
      Type.String({ description: "The review policy rule that decided (decided_by 'policy'); null otherwise" }),
    ),
    note: nullable(Type.String({ description: "The reviewer's note to the agent, if any" })),
    regions: Type.Array(ReviewRegionSchema, {
      description: 'Boxes on the image the decision points at, as fractions (0–1) of the original, origin top left',
    }),
    moments: Type.Array(ReviewMomentSchema, {
      description:
        "A video's time-coded items: a moment or a stretch in seconds, a label, optionally a region (empty when none)",
    }),
  },
  { additionalProperties: false },
);

/** GET /v1/frame-submissions/{id}; also the 202 body of the create (its first six fields are §2.1's). */
export const FrameSubmissionSchema = Type.Object(
  {
    id: SubmissionIdSchema,
    status: SubmissionStatusSchema,
    agent_slug: SlugSchema,
    channel_slug: SlugSchema,
    date: FrameDateSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
    media_type: stringEnum(API_MEDIA_TYPES),
    visibility: stringEnum(API_VISIBILITIES),
    title: nullable(Type.String()),
    caption: nullable(Type.String()),
    click_zones: Type.Array(ClickZoneSchema),
    external_ref: nullable(Type.String()),
    media_upload_id: nullable(UploadIdSchema),
    variants: Type.Record(Type.String(), Type.String({ format: 'uri' }), {
      description: 'Variant name → short-lived signed URL, once processed',
    }),
    failure: nullable(FailureSchema),
    review: nullable(ReviewSchema),
    revision_of: nullable({
      ...SubmissionIdSchema,
      description: 'The earlier frame of this agent and channel this one replaces (metadata.revision_of)',
    } as typeof SubmissionIdSchema),
    purged_at: Type.Optional(
      nullable(
        Type.String({
          format: 'date-time',
          description:
            "When the media were deleted (the channel's retention, or an erasure request); `variants` is then empty and the rest of the record stays. Null while the media are kept",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type FrameSubmission = Static<typeof FrameSubmissionSchema>;

export const FrameSubmissionListSchema = Type.Object(
  {
    data: Type.Array(FrameSubmissionSchema),
    has_more: Type.Boolean(),
    next_cursor: nullable(Type.String({ description: 'Pass as `cursor` for the next page' })),
  },
  { additionalProperties: false },
);
export type FrameSubmissionList = Static<typeof FrameSubmissionListSchema>;

/** One rejection in an agent's record: what was said, where in the picture, never who. */
export const AgentRejectionSchema = Type.Object(
  {
    id: SubmissionIdSchema,
    channel_slug: SlugSchema,
    title: nullable(Type.String()),
    created_at: TimestampSchema,
    decided_at: TimestampSchema,
    decided_by: stringEnum(DECIDED_BY),
    rule: nullable(Type.String()),
    reason: nullable(Type.String()),
    note: nullable(Type.String()),
    regions: Type.Array(ReviewRegionSchema),
    moments: Type.Array(ReviewMomentSchema),
    revision_of: nullable(SubmissionIdSchema),
  },
  { additionalProperties: false },
);

/** GET /v1/agents/{agent_slug}/feedback: the agent's own record since a date. */
export const AgentFeedbackSchema = Type.Object(
  {
    agent_slug: SlugSchema,
    since: { ...TimestampSchema, description: 'The start of the window (from `since`)' },
    counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'Frames sent since `since`, by status (every status, 0 when none)',
    }),
    total: Type.Integer({ minimum: 0 }),
    promoted_share: nullable(
      Type.Number({ minimum: 0, maximum: 1, description: 'promoted / (promoted + rejected); null before a decision' }),
    ),
    rejected_share: nullable(Type.Number({ minimum: 0, maximum: 1, description: 'rejected / (promoted + rejected)' })),
    top_reasons: Type.Array(
      Type.Object({ reason: Type.String(), count: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
      { description: 'Reasons of the rejected frames sent since `since`, most frequent first (at most 10)' },
    ),
    median_seconds_to_decision: nullable(
      Type.Number({ description: 'Median seconds from needs_review to the decision; null before a decision' }),
    ),
    rejections: Type.Array(AgentRejectionSchema, {
      description: 'Frames rejected since `since`, the most recently decided first (one page)',
    }),
    next_cursor: nullable(Type.String({ description: 'Pass as `cursor` for the next page of rejections' })),
  },
  { additionalProperties: false },
);
export type AgentFeedback = Static<typeof AgentFeedbackSchema>;
export type AgentRejection = Static<typeof AgentRejectionSchema>;

export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;
export const FrameSubmissionListQuerySchema = Type.Object(
  {
    channel_slug: Type.Optional(SlugSchema),
    status: Type.Optional(SubmissionStatusSchema),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT })),
  },
  { additionalProperties: false },
);
export type FrameSubmissionListQuery = Static<typeof FrameSubmissionListQuerySchema>;

/** POST (201) and GET (200) /v1/media-uploads: the session; its status is its submission's. */
export const MediaUploadSchema = Type.Object(
  {
    id: UploadIdSchema,
    status: SubmissionStatusSchema,
    provider: stringEnum(['vendor_stream'] as const),
    upload_url: Type.String({ format: 'uri' }),
    upload_protocol: stringEnum(UPLOAD_PROTOCOLS, 'basic: one multipart POST of field `file`; tus: tus 1.0 resumable'),
    expires_at: TimestampSchema,
    submission_id: SubmissionIdSchema,
    filename: Type.String(),
    content_type: Type.String(),
    byte_size: Type.Integer(),
    created_at: TimestampSchema,
    failure: nullable(FailureSchema),
  },
  { additionalProperties: false },
);
export type MediaUpload = Static<typeof MediaUploadSchema>;

/** RFC 9457 problem details, the body of every non-2xx answer. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    code: Type.String({ description: 'Stable machine-readable error code' }),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            pointer: Type.String(),
            detail: Type.String(),
            // policy_invalid (the workbench's Policies screen): which rule, what, and where in its condition.
            rule: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
            name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
            message: Type.Optional(Type.String()),
            line: Type.Optional(Type.Integer({ minimum: 1 })),
            column: Type.Optional(Type.Integer({ minimum: 1 })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: true },
);
export type Problem = Static<typeof ProblemSchema>;
