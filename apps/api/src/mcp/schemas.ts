import { z } from 'zod';
import type { ProjectConfig } from '@framedesk/config';
import {
  frameMetadataSchema,
  LIST_LIMIT_MAX,
  mediaUploadRequestSchema,
  SlugSchema,
  SubmissionIdSchema,
  SubmissionStatusSchema,
} from '@framedesk/contracts';
import { DomainError, type FieldError } from '@framedesk/domain';
import { contractLimits } from '@framedesk/submissions';
import { boundedErrors } from './limits';

type JsonSchema = Record<string, unknown>;

/** The contract's JSON Schema without TypeBox's symbol keys. */
const plain = (schema: object): JsonSchema => JSON.parse(JSON.stringify(schema)) as JsonSchema;

/**
 * An argument shown to the model with the contract's own JSON Schema but passed through by the
 * SDK unchecked: the REST validators check it, so a wrong or missing value is a
 * `validation_failed` result listing every field, not the SDK's generic argument error.
 */
const field = (schema: object, description?: string) =>
  z
    .unknown()
    .optional()
    .meta({ ...plain(schema), ...(description ? { description } : {}) });

/** The tool's arguments: `required` is what the model is told; the validators enforce it. */
const args = (fields: Record<string, z.ZodType>, required: string[]) => z.looseObject(fields).meta({ required });

const IDEMPOTENCY_KEY = field(
  { type: 'string', format: 'uuid' },
  'A UUID. Pass the same one when retrying the same call after a lost answer; a new one is made otherwise',
);
const AGENT_SLUG = "Slug of the submitting agent; defaults to this API key's agent";

export function toolSchemas(config: ProjectConfig) {
  const limits = contractLimits(config);
  const frame = plain(frameMetadataSchema(limits))['properties'] as Record<string, JsonSchema>;
  const upload = plain(mediaUploadRequestSchema(limits))['properties'] as Record<string, JsonSchema>;
  return {
    submitFrame: args(
      {
        agent_slug: field(frame['agent_slug']!, AGENT_SLUG),
        channel_slug: field(frame['channel_slug']!, 'Slug of the target channel (see list_channels)'),
        date: field(frame['date']!, 'The frame day, YYYYMMDD, e.g. "20261122"'),
        title: field(frame['title']!),
        caption: field(frame['caption']!),
        click_zones: field(frame['click_zones']!),
        external_ref: field(frame['external_ref']!),
        revision_of: field(frame['revision_of']!),
        image_base64: field(
          { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
          `The PNG file, base64-encoded (a data:image/png;base64, prefix is allowed); at most ${config.media.multipart_max_bytes} bytes decoded`,
        ),
        idempotency_key: IDEMPOTENCY_KEY,
      },
      ['channel_slug', 'date', 'image_base64'],
    ),
    getSubmission: args(
      { submission_id: field(SubmissionIdSchema, 'The sub_… id returned by submit_frame or create_video_upload') },
      ['submission_id'],
    ),
    listSubmissions: args(
      {
        channel_slug: field(SlugSchema, 'Only this channel'),
        status: field(SubmissionStatusSchema, 'Only this status'),
        cursor: field({ type: 'string' }, 'next_cursor of the previous page'),
        limit: field({ type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX }, 'Page size'),
      },
      [],
    ),
    listChannels: args({}, []),
    getFeedback: args(
      {
        agent_slug: field({ type: 'string' }, "This API key's agent (the default); any other is not_found"),
        since: field({ type: 'string' }, 'An ISO 8601 date or timestamp; 30 days ago by default, at most 365 days ago'),
        cursor: field({ type: 'string' }, 'next_cursor of the previous page of rejections'),
        limit: field({ type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX }, 'Rejections per page'),
      },
      [],
    ),
    createVideoUpload: args(
      {
        agent_slug: field(upload['agent_slug']!, AGENT_SLUG),
        channel_slug: field(upload['channel_slug']!, 'Slug of the target channel (see list_channels)'),
        filename: field(upload['filename']!, 'Name of the file, e.g. clip.mp4'),
        content_type: field(upload['content_type']!, 'MIME type: one of the channel rules video_mime_types'),
        byte_size: field(upload['byte_size']!, 'Exact size of the file in bytes'),
        date: field(upload['date']!),
        metadata: field(upload['metadata']!, 'title, caption, click_zones, external_ref'),
        idempotency_key: IDEMPOTENCY_KEY,
      },
      ['channel_slug', 'filename', 'content_type', 'byte_size'],
    ),
  };
}

/**
 * `validation_failed` with pointers into the tool's arguments (the REST validators point into the
 * body), at most ERRORS_SHOWN of them.
 */
export function argumentErrors(errors: readonly FieldError[], strip = ''): DomainError {
  return new DomainError('validation_failed', 'The arguments failed validation; see errors.', {
    errors: boundedErrors(errors).map((e) => ({
      ...e,
      pointer: strip && e.pointer.startsWith(strip) ? e.pointer.slice(strip.length) || '/' : e.pointer,
    })),
  });
}

/** Re-points a REST validator's `validation_failed` at the tool's arguments. */
export function asArgumentErrors<T>(strip: string, validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'validation_failed' && error.errors)
      throw argumentErrors(error.errors, strip);
    throw error;
  }
}

/** A string argument, or a field error for it. */
export function stringArg(
  value: unknown,
  name: string,
  errors: FieldError[],
  { required = false }: { required?: boolean } = {},
): string | undefined {
  if (value === undefined || value === null) {
    if (required) errors.push({ pointer: `/${name}`, detail: 'is required' });
    return undefined;
  }
  if (typeof value !== 'string') {
    errors.push({ pointer: `/${name}`, detail: 'must be a string' });
    return undefined;
  }
  return value;
}

export type ToolSchemas = ReturnType<typeof toolSchemas>;
