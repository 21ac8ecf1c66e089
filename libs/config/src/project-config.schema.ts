import { type Static, Type } from '@sinclair/typebox';
import { VISIBILITIES } from '@framedesk/domain';
import { stringEnum } from './validation';

const strict = { additionalProperties: false } as const;
const positiveInteger = (description: string) => Type.Integer({ minimum: 1, description });

/**
 * The project configuration, exactly as the interface document §2.4 lists it: five required
 * groups, no properties other than those listed, at the root or in any group.
 */
export const projectConfigSchema = Type.Object(
  {
    api: Type.Object(
      {
        base_url: Type.String({ format: 'uri', description: 'Public base address of the service' }),
        metadata_max_bytes: positiveInteger('Largest metadata part, in bytes'),
      },
      strict,
    ),
    media: Type.Object(
      {
        allowed_image_mime_types: Type.Array(Type.String(), { minItems: 1 }),
        allowed_video_mime_types: Type.Array(Type.String()),
        multipart_max_bytes: positiveInteger('Largest multipart request body, in bytes'),
        small_video_max_bytes: Type.Optional(positiveInteger('Largest video sent in one request; larger ones use tus')),
        video_max_duration_seconds: Type.Optional(positiveInteger('Longest accepted video, in seconds')),
        click_zones_max: positiveInteger('Most click zones on one frame'),
      },
      strict,
    ),
    storage: Type.Object(
      { vendor_originals_bucket: Type.String({ description: 'Name of the bucket holding original media' }) },
      strict,
    ),
    delivery: Type.Object(
      {
        vendor_image_variants: Type.Array(Type.String(), { minItems: 1 }),
        vendor_stream_upload_expires_seconds: Type.Integer({ minimum: 60 }),
      },
      strict,
    ),
    approval_defaults: Type.Object(
      {
        initial_visibility: stringEnum(VISIBILITIES),
        requires_review: Type.Boolean(),
      },
      strict,
    ),
  },
  strict,
);

export type ProjectConfig = Static<typeof projectConfigSchema>;
