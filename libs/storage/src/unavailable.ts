// The AWS SDK's names for storage it could not reach, or that answered 5xx.
const S3_UNAVAILABLE = new Set([
  'TimeoutError',
  'NetworkingError',
  'ServiceUnavailable',
  'SlowDown',
  'InternalError',
  'RequestTimeout',
]);

/** Why this one error means the object store is unavailable (the same call may succeed later), or null. */
export function storageUnavailableReason(error: object): string | null {
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const status = e.$metadata?.httpStatusCode;
  if ((typeof e.name === 'string' && S3_UNAVAILABLE.has(e.name)) || (typeof status === 'number' && status >= 500))
    return `storage unavailable (${String(e.name)})`;
  return null;
}
