/**
 * The error table (DESIGN.md §4): every stable `code` the service answers with, its HTTP status
 * and its RFC 9457 title. One Express error handler turns a DomainError into problem+json;
 * nothing else writes error responses.
 */
export const ERROR_CATALOG = {
  invalid_request: { status: 400, title: 'The request is malformed' },
  idempotency_key_required: { status: 400, title: 'An Idempotency-Key header is required' },
  invalid_idempotency_key: { status: 400, title: 'The Idempotency-Key header is not a UUID' },
  unauthenticated: { status: 401, title: 'Authentication is required' },
  invalid_signature: { status: 401, title: 'The notification signature is not valid' },
  forbidden: { status: 403, title: 'The credentials do not allow this' },
  csrf_failed: { status: 403, title: 'The CSRF token is missing or wrong' },
  not_found: { status: 404, title: 'No such resource' },
  method_not_allowed: { status: 405, title: 'The method is not allowed on this resource' },
  idempotency_key_in_use: { status: 409, title: 'A request with this Idempotency-Key is still in flight' },
  invalid_transition: { status: 409, title: 'The submission is not in a state that allows this' },
  media_purged: { status: 409, title: "The submission's media were purged" },
  not_promotion_eligible: { status: 409, title: 'Only promotion_eligible submissions can be promoted' },
  claimed_by_other: { status: 409, title: 'Another reviewer holds the claim on this submission' },
  already_approved: { status: 409, title: 'This reviewer has already approved; another reviewer must' },
  already_exists: { status: 409, title: 'A resource with this name already exists' },
  last_admin: { status: 409, title: 'The last enabled admin cannot be demoted or disabled' },
  upload_already_completed: { status: 409, title: 'This upload session has already received its media' },
  upload_offset_mismatch: { status: 409, title: 'Upload-Offset does not match the bytes received so far' },
  upload_expired: { status: 410, title: 'The upload session has expired' },
  upload_locked: { status: 423, title: 'Another request holds this upload' },
  metadata_too_large: { status: 413, title: 'The metadata part is too large' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  tus_version_unsupported: { status: 412, title: 'Tus-Resumable 1.0.0 is required' },
  unsupported_media_type: { status: 415, title: 'The media type is not supported' },
  validation_failed: { status: 422, title: 'The request failed validation' },
  invalid_revision: { status: 422, title: 'metadata.revision_of does not name a frame this one can revise' },
  revision_limit_reached: { status: 422, title: 'The earlier frame has as many revisions as a frame may have' },
  policy_invalid: { status: 422, title: 'The review policy is not valid' },
  idempotency_key_reused: { status: 422, title: 'The Idempotency-Key was used for a different request' },
  rate_limited: { status: 429, title: 'Too many requests' },
  quota_exceeded: { status: 429, title: "The agent's quota is used up" },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'A dependency is unavailable; nothing was created' },
  busy: { status: 503, title: 'This API process runs as many of these requests as it allows at once' },
  deadline_exceeded: { status: 503, title: 'The request ran past its deadline and was stopped' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export interface FieldError {
  /** JSON Pointer into the request, e.g. `/metadata/click_zones/0/url`. */
  readonly pointer: string;
  readonly detail: string;
  /** `policy_invalid`: the rule's 1-based position and name (null for the file as a whole). */
  readonly rule?: number | null;
  readonly name?: string | null;
  /** `policy_invalid`: the problem alone, without where it is. */
  readonly message?: string;
  /** `policy_invalid`, a condition's problem: 1-based line and column in the expression. */
  readonly line?: number;
  readonly column?: number;
}

export interface DomainErrorOptions {
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

export class DomainError extends Error {
  readonly status: number;
  readonly title: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: DomainErrorOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'DomainError';
    this.status = ERROR_CATALOG[code].status;
    this.title = ERROR_CATALOG[code].title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}

/**
 * Why a submission ended `failed` (its `failure.code`), always decided at once by a proven
 * cause. `processing_error` means the original is gone from storage; errors nothing explains
 * never fail a submission (the worker holds the job, docs/reliability.md "Job error classes").
 */
export const FAILURE_CODES = [
  'invalid_image',
  'image_too_large',
  'unsupported_content',
  'invalid_video',
  'duration_exceeded',
  'upload_expired',
  'provider_error',
  'processing_error',
  /** Its processing ended the worker (native crash, out of memory) three times: not run again. */
  'processing_crashed',
  /** An erasure request removed it before it was processed or reviewed. */
  'erased',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];
