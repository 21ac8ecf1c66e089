/**
 * What an operator reads when storage refuses Framedesk: one line naming the setting and the fix,
 * for `/readyz`'s detail, the api's and worker's start log and `doctor`. S3 errors are told apart by
 * their name (the error code S3 answers) and HTTP status, never by their message: RGW sends none
 * (the SDK then says "UnknownError").
 */
export type StorageProblemCause = 'missing_bucket' | 'endpoint' | 'credentials' | 'clock_skew' | 'fs' | 'other';

export interface StorageProblem {
  readonly cause: StorageProblemCause;
  /** What is wrong. */
  readonly problem: string;
  /** The setting and the fix. */
  readonly fix: string;
  /** One line, `problem; fix`. Names no host, key or path. */
  readonly line: string;
}

interface S3ErrorShape {
  readonly name?: string;
  readonly code?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

const CREDENTIAL_ERRORS = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken']);
const CLOCK_ERRORS = new Set(['RequestTimeTooSkewed', 'RequestExpired']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT']);

const BUCKET_SETTING = 'storage.vendor_originals_bucket in the project configuration';

export function describeStorageProblem(error: unknown, driver: 'fs' | 's3', bucket: string): StorageProblem {
  const { cause, problem, fix } = classify(error, driver, bucket);
  return { cause, problem, fix, line: `${problem}; ${fix}` };
}

function classify(error: unknown, driver: 'fs' | 's3', bucket: string): Omit<StorageProblem, 'line'> {
  const e = (error ?? {}) as S3ErrorShape;
  const status = e.$metadata?.httpStatusCode;
  const label = [e.name, status].filter((part) => part !== undefined).join(' ');
  if (driver === 'fs')
    return {
      cause: 'fs',
      problem: `storage (fs): bucket folder ${bucket} not writable (${e.code ?? e.name ?? 'error'})`,
      fix: `make STORAGE_FS_ROOT writable by this user`,
    };
  if (e.name === 'NoSuchBucket' || (status === 404 && e.name === 'NotFound'))
    return {
      cause: 'missing_bucket',
      problem: `storage (s3): bucket ${bucket} does not exist (${label})`,
      fix: `create it on the S3 server (Framedesk does not create buckets: docs/operations.md, "S3") or set ${BUCKET_SETTING} to an existing bucket`,
    };
  if (CLOCK_ERRORS.has(e.name ?? ''))
    return {
      cause: 'clock_skew',
      problem: `storage (s3): S3 refused this machine's clock (${label})`,
      fix: `set this machine's clock right (NTP: timedatectl set-ntp true); S3 refuses requests more than 15 minutes off`,
    };
  if (CREDENTIAL_ERRORS.has(e.name ?? '') || status === 403)
    return {
      cause: 'credentials',
      problem: `storage (s3): S3 refused the credentials (${label})`,
      fix: `fix S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (they need read and write on bucket ${bucket})`,
    };
  if (status === undefined && (NETWORK_CODES.has(e.code ?? '') || e.name === 'TimeoutError'))
    return {
      cause: 'endpoint',
      problem: `storage (s3): no S3 server answers at S3_ENDPOINT (${e.code ?? e.name})`,
      fix: `fix S3_ENDPOINT (scheme, host and port) or start the S3 server`,
    };
  return {
    cause: 'other',
    problem: `storage (s3): bucket ${bucket} not usable (${label || 'error'})`,
    fix: `check S3_ENDPOINT, S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY and that the bucket exists`,
  };
}
