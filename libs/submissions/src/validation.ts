import { compileValidator, type ProjectConfig, type Violation } from '@framedesk/config';
import {
  type ContractLimits,
  type FrameMetadata,
  frameMetadataSchema,
  type MediaUploadRequest,
  mediaUploadRequestSchema,
} from '@framedesk/contracts';
import { DomainError, type FieldError, isFrameDate } from '@framedesk/domain';

// Float sums such as 0.7 + 0.3 land a hair above 1; a zone that touches the edge is inside.
const EPSILON = 1e-9;

interface ZoneLike {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Rules JSON Schema cannot state: real calendar dates and zones that stay inside the frame. */
function extraRules(value: { date?: string; click_zones?: readonly ZoneLike[] }, zonesPointer: string): Violation[] {
  const violations: Violation[] = [];
  if (value.date !== undefined && !isFrameDate(value.date))
    violations.push({ path: '/date', message: 'must be a real calendar date, YYYYMMDD' });
  (value.click_zones ?? []).forEach((zone, index) => {
    if (zone.x + zone.width > 1 + EPSILON)
      violations.push({
        path: `${zonesPointer}/${index}/width`,
        message: 'x + width must not exceed 1 (the zone must stay inside the frame)',
      });
    if (zone.y + zone.height > 1 + EPSILON)
      violations.push({
        path: `${zonesPointer}/${index}/height`,
        message: 'y + height must not exceed 1 (the zone must stay inside the frame)',
      });
  });
  return violations;
}

const toFieldErrors = (violations: readonly Violation[], prefix: string): FieldError[] =>
  violations.map((v) => ({ pointer: `${prefix}${v.path === '/' ? '' : v.path}` || '/', detail: v.message }));

export function contractLimits(config: ProjectConfig): ContractLimits {
  return { clickZonesMax: config.media.click_zones_max };
}

/** Validators of the agent API's requests, compiled once from the contracts' schemas. */
export function requestValidators(config: ProjectConfig) {
  const limits = contractLimits(config);
  const metadata = compileValidator(frameMetadataSchema(limits));
  const upload = compileValidator(mediaUploadRequestSchema(limits));
  return {
    /** The parsed `metadata` part, or 422 listing every violation (pointers under `/metadata`). */
    frameMetadata(input: unknown): FrameMetadata {
      const result = metadata(input);
      const violations = result.ok ? extraRules(result.value, '/click_zones') : result.violations;
      if (violations.length > 0) {
        throw new DomainError('validation_failed', 'The metadata part failed validation; see errors.', {
          errors: toFieldErrors(violations, '/metadata'),
        });
      }
      return input as FrameMetadata;
    },
    /** The JSON body of POST /v1/media-uploads: 422 with every violation, or 415 for a refused content type. */
    mediaUploadRequest(input: unknown): MediaUploadRequest {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new DomainError('invalid_request', 'The body must be a JSON object.');
      }
      const result = upload(input);
      const violations = result.ok
        ? [
            ...extraRules({ date: result.value.date }, ''),
            ...extraRules({ click_zones: result.value.metadata?.click_zones }, '/metadata/click_zones'),
          ]
        : result.violations;
      if (violations.length > 0)
        throw new DomainError('validation_failed', 'The request failed validation; see errors.', {
          errors: toFieldErrors(violations, ''),
        });
      const body = input as MediaUploadRequest;
      const allowed = config.media.allowed_video_mime_types;
      if (!allowed.includes(body.content_type.toLowerCase())) {
        throw new DomainError(
          'unsupported_media_type',
          allowed.length === 0
            ? 'This service accepts no video uploads (media.allowed_video_mime_types is empty).'
            : `content_type "${body.content_type}" is not accepted; use one of: ${allowed.join(', ')}.`,
        );
      }
      return body;
    },
  };
}
export type RequestValidators = ReturnType<typeof requestValidators>;
