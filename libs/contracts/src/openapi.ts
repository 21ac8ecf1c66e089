import type { TSchema } from '@sinclair/typebox';
import {
  AgentFeedbackSchema,
  type ContractLimits,
  frameMetadataSchema,
  FrameSubmissionListSchema,
  FrameSubmissionSchema,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  mediaUploadRequestSchema,
  MediaUploadSchema,
  ProblemSchema,
  SlugSchema,
  SubmissionIdSchema,
  SubmissionStatusSchema,
  UploadIdSchema,
} from './schemas';

/** The parts of the project configuration the document states (limits, allowed types). */
export interface OpenApiConfig {
  readonly api: { readonly base_url: string; readonly metadata_max_bytes: number };
  readonly media: {
    readonly allowed_image_mime_types: readonly string[];
    readonly allowed_video_mime_types: readonly string[];
    readonly multipart_max_bytes: number;
    readonly click_zones_max: number;
  };
  readonly delivery: { readonly vendor_stream_upload_expires_seconds: number };
}

/** Plain JSON Schema: TypeBox's symbol-keyed bookkeeping removed. */
const plain = (schema: TSchema): Record<string, unknown> =>
  JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

/** Request examples shown by the reference page; the contract test checks them against the schemas. */
export const requestExamples = {
  frameMetadata: {
    agent_slug: 'weather-bot',
    channel_slug: 'morning-news',
    date: '20260301',
    title: 'Rain over the harbour',
    caption: 'Radar at 06:00',
    click_zones: [{ x: 0.1, y: 0.1, width: 0.3, height: 0.2, url: 'https://example.com/forecast', label: 'Forecast' }],
    external_ref: 'run-4812',
  },
  mediaUpload: {
    agent_slug: 'weather-bot',
    channel_slug: 'morning-news',
    media_type: 'video',
    filename: 'timelapse.mp4',
    content_type: 'video/mp4',
    byte_size: 7340032,
    date: '20260301',
    metadata: { title: 'Harbour timelapse', external_ref: 'run-4813' },
  },
} as const;

/** The components every answer may carry; also what the API validates with. */
export function contractSchemas(limits: ContractLimits): Record<string, Record<string, unknown>> {
  return {
    FrameMetadata: plain(frameMetadataSchema(limits)),
    FrameSubmission: plain(FrameSubmissionSchema),
    FrameSubmissionList: plain(FrameSubmissionListSchema),
    AgentFeedback: plain(AgentFeedbackSchema),
    MediaUploadRequest: plain(mediaUploadRequestSchema(limits)),
    MediaUpload: plain(MediaUploadSchema),
    Problem: plain(ProblemSchema),
  };
}

const rateLimitHeaders = {
  'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in this window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
};

const commonErrors = {
  '401': problem('`unauthenticated`: missing, malformed, unknown or revoked key (`WWW-Authenticate: Bearer`)'),
  '429': {
    ...problem('`rate_limited`: per-key limit reached; wait `Retry-After` seconds'),
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
  },
  '503': problem('`service_unavailable`: a dependency is down; nothing was created'),
  default: problem('Any other error, as problem details'),
};

const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  description:
    'A client-generated UUID (bare or quoted). Retrying with the same key replays the first answer (`Idempotent-Replayed: true`) for 24 hours.',
  schema: { type: 'string', maxLength: 64 },
  example: '3f6c2a9e-8f1b-4c1e-9d62-0b7a5e4d2c10',
};

const createErrors = {
  '400': problem('`invalid_request`, `idempotency_key_required`, `invalid_idempotency_key`'),
  '403': problem("`forbidden`: `agent_slug` is not the key's agent, or the agent may not post to the channel"),
  '409': {
    ...problem(
      '`idempotency_key_in_use`: the first request with this key is still in flight; retry after `Retry-After`',
    ),
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
  },
  '413': problem('`metadata_too_large` or `payload_too_large`'),
  '415': problem('`unsupported_media_type`'),
  '422': problem(
    '`validation_failed` (every field error in `errors`), `invalid_revision` (`metadata.revision_of`: the detail names the rule), `revision_limit_reached` (the earlier frame has 10 revisions already) or `idempotency_key_reused`',
  ),
};

/**
 * The OpenAPI 3.1 document of the agent API, built from the same schemas the server validates
 * with. `config` supplies the limits it states.
 */
const idPath = (name: string, schema: TSchema, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: plain(schema),
});

const cursorParam = {
  name: 'cursor',
  in: 'query',
  required: false,
  description: '`next_cursor` of the previous page',
  schema: { type: 'string' },
};

const limitParam = (description?: string) => ({
  name: 'limit',
  in: 'query',
  required: false,
  ...(description ? { description } : {}),
  schema: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT },
});

/** `/v1/frame-submissions` (submit, list, get) and the agent's feedback record. */
function frameSubmissionPaths(config: OpenApiConfig) {
  return {
    '/v1/frame-submissions': {
      post: {
        operationId: 'createFrameSubmission',
        summary: 'Submit an image frame',
        description: `Multipart with parts \`metadata\` (JSON, at most ${config.api.metadata_max_bytes} bytes) and \`image\` (${config.media.allowed_image_mime_types.join(', ')}; really a PNG). The whole body may be at most ${config.media.multipart_max_bytes} bytes. A \`video\` part or a \`media_upload_id\` field is refused with 415: videos go through POST /v1/media-uploads.`,
        parameters: [idempotencyKey],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['metadata', 'image'],
                properties: {
                  metadata: ref('FrameMetadata'),
                  image: { type: 'string', contentMediaType: 'image/png' },
                },
              },
              example: { metadata: requestExamples.frameMetadata, image: '(PNG bytes)' },
              encoding: {
                metadata: { contentType: 'application/json' },
                image: { contentType: config.media.allowed_image_mime_types.join(', ') },
              },
            },
          },
        },
        responses: {
          '202': {
            description: 'Accepted with status `received`; processing continues asynchronously',
            headers: rateLimitHeaders,
            content: json('FrameSubmission'),
          },
          ...createErrors,
          ...commonErrors,
        },
      },
      get: {
        operationId: 'listFrameSubmissions',
        summary: "The agent's own submissions, newest first",
        parameters: [
          { name: 'channel_slug', in: 'query', required: false, schema: plain(SlugSchema) },
          { name: 'status', in: 'query', required: false, schema: plain(SubmissionStatusSchema) },
          cursorParam,
          limitParam(),
        ],
        responses: {
          '200': { description: 'One page', headers: rateLimitHeaders, content: json('FrameSubmissionList') },
          '400': problem('`invalid_request`: the cursor is not one we issued'),
          '422': problem('`validation_failed`'),
          ...commonErrors,
        },
      },
    },
    '/v1/frame-submissions/{submission_id}': {
      get: {
        operationId: 'getFrameSubmission',
        summary: 'The full submission, for polling',
        parameters: [idPath('submission_id', SubmissionIdSchema, 'The `sub_` id')],
        responses: {
          '200': { description: 'The submission', headers: rateLimitHeaders, content: json('FrameSubmission') },
          '404': problem("`not_found`: unknown, or another agent's"),
          ...commonErrors,
        },
      },
    },
    '/v1/agents/{agent_slug}/feedback': {
      get: {
        operationId: 'getAgentFeedback',
        summary: "The agent's own record: counts, shares, top reasons, time to decision, recent rejections",
        description:
          "Poll it like every agent endpoint (no webhook, no push). Counts, shares, reasons and the median cover the frames sent since `since`; `rejections` are the frames rejected since `since`, the most recently decided first, with their notes and regions (paged). Never a reviewer's identity. A key's calls of this endpoint and of /mcp together run at most MCP_CONCURRENT_PER_KEY at once per API process (429 `rate_limited` with Retry-After beyond).",
        parameters: [
          idPath('agent_slug', SlugSchema, "The key's own agent (any other slug is 404)"),
          {
            name: 'since',
            in: 'query',
            required: false,
            description:
              'An ISO 8601 date (`2026-11-01`) or timestamp; 30 days ago by default, at most 365 days ago (422 `validation_failed` naming `/query/since` beyond)',
            schema: { type: 'string' },
          },
          cursorParam,
          limitParam('Rejections per page'),
        ],
        responses: {
          '200': { description: 'The record', headers: rateLimitHeaders, content: json('AgentFeedback') },
          '400': problem('`invalid_request`: the cursor is not one we issued'),
          '404': problem("`not_found`: not the key's own agent"),
          '422': problem('`validation_failed`: `since` (not a date, or more than 365 days ago) or `limit`'),
          ...commonErrors,
        },
      },
    },
  };
}

/** `/v1/media-uploads`: video upload sessions. */
function mediaUploadPaths(config: OpenApiConfig) {
  return {
    '/v1/media-uploads': {
      post: {
        operationId: 'createMediaUpload',
        summary: 'Create a video upload session (and its submission)',
        description: `Allowed content types: ${config.media.allowed_video_mime_types.join(', ') || 'none'}. The session expires after ${config.delivery.vendor_stream_upload_expires_seconds} seconds. Upload with \`upload_protocol\`: \`basic\` (one multipart POST of field \`file\`) or \`tus\` (tus 1.0). The submission then continues by itself; do not resubmit with \`media_upload_id\`.`,
        parameters: [idempotencyKey],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: ref('MediaUploadRequest'), example: requestExamples.mediaUpload },
          },
        },
        responses: {
          '201': {
            description: 'Created with status `waiting_for_upload`',
            headers: rateLimitHeaders,
            content: json('MediaUpload'),
          },
          ...createErrors,
          ...commonErrors,
          '413': problem("`payload_too_large`: `byte_size` is above the installation's largest video"),
          '429': {
            ...problem(
              "`rate_limited` (per-key limit) or `quota_exceeded` (the agent's open upload sessions or their bytes); retry after `Retry-After`",
            ),
            headers: { 'Retry-After': { schema: { type: 'integer' } } },
          },
        },
      },
    },
    '/v1/media-uploads/{upload_id}': {
      get: {
        operationId: 'getMediaUpload',
        summary: "The upload session; its status is its submission's",
        parameters: [idPath('upload_id', UploadIdSchema, 'The `upl_` id')],
        responses: {
          '200': { description: 'The upload session', headers: rateLimitHeaders, content: json('MediaUpload') },
          '404': problem("`not_found`: unknown, or another agent's"),
          ...commonErrors,
        },
      },
    },
  };
}

/** `/media/…`: signed variant URLs. */
function mediaPaths() {
  return {
    '/media/{submission_id}/{name}': {
      get: {
        operationId: 'getMedia',
        summary: 'A variant (or poster) of a submission, by the signed URL its `variants` give',
        description:
          'The URL is its own authorization (`expires` and `signature`, issued by GET of the submission, valid for 15 minutes): no Bearer key. `public`, the full-resolution variant, is made once the frame is promoted: asked before it exists it is made on the request, or answered 202 with `Retry-After` — never 404 while the frame can still be delivered. A rejected, failed or purged frame never gets one (404).',
        security: [],
        parameters: [
          idPath('submission_id', SubmissionIdSchema, 'The `sub_` id'),
          {
            name: 'name',
            in: 'path',
            required: true,
            description: 'A variant name (`public`, `thumbnail`, `preview`, …) or `poster`',
            schema: { type: 'string' },
          },
          { name: 'expires', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'signature', in: 'query', required: true, schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'The image',
            content: { 'image/webp': { schema: { type: 'string', contentMediaType: 'image/webp' } } },
          },
          '202': {
            description:
              '`public` does not exist yet: made when the frame is promoted (`Retry-After: 30` while it is in review), or being made now (`Retry-After: 2`). Request the same URL again after `Retry-After` seconds (GET the submission for a fresh URL once it expires).',
            headers: { 'Retry-After': { schema: { type: 'integer' } } },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['status', 'detail', 'retry_after_seconds'],
                  properties: {
                    status: { const: 'pending' },
                    detail: { type: 'string' },
                    retry_after_seconds: { type: 'integer' },
                  },
                },
              },
            },
          },
          '403': problem('`forbidden`: the URL is not one we signed, or it has expired'),
          '404': problem('`not_found`: no such media (a rejected, failed or purged frame has no `public`)'),
        },
      },
    },
  };
}

export function buildOpenApiDocument(config: OpenApiConfig): Record<string, unknown> {
  const limits: ContractLimits = { clickZonesMax: config.media.click_zones_max };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Framedesk agent API',
      version: '1.0.0',
      description:
        'Agents submit frames (PNG images, videos) to channels and poll for their status. Every error is RFC 9457 problem details with a stable `code` and a `request_id`.',
    },
    servers: [{ url: config.api.base_url }],
    security: [{ bearerAuth: [] }],
    paths: {
      ...frameSubmissionPaths(config),
      ...mediaUploadPaths(config),
      ...mediaPaths(),
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An agent API key, `fd_live_…`' } },
      schemas: contractSchemas(limits),
    },
  };
}
