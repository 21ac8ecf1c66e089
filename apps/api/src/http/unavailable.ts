import { DomainError } from '@framedesk/domain';

const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const ADAPTER_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseDoesNotExist',
]);
// Network errors, and storage that is out of space: the request may succeed later, unchanged.
const NETWORK_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'ENOSPC',
  'EDQUOT',
]);
// PostgreSQL SQLSTATEs of a server going away: connection exceptions (08…) and operator intervention (57P0…).
const POSTGRES_UNAVAILABLE = /^(08\d{3}|57P0[1-4])$/;
// node-postgres reports a dropped socket with a message and no code; so does Prisma at times.
const DROPPED =
  /Connection terminated|terminating connection|database system is (starting up|shutting down|in recovery mode)|Client has encountered a connection error|Can't reach database server/i;
// ioredis while Redis is down or restarting (the upload lock, the rate limiter's store).
const REDIS_DOWN = /^(Stream isn't writeable|Connection is closed|Reached the max retries per request limit)/;

// The AWS SDK's names for storage it could not reach or that answered 5xx.
const STORAGE_UNAVAILABLE = new Set([
  'TimeoutError',
  'NetworkingError',
  'ServiceUnavailable',
  'SlowDown',
  'InternalError',
  'RequestTimeout',
]);

interface ErrorLike {
  name?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  code?: unknown;
  errorCode?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** The error, its causes and Prisma's driver-adapter error, outermost first. */
function chain(error: unknown): ErrorLike[] {
  const seen: ErrorLike[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.length < 10) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.includes(e as ErrorLike)) continue;
    const like = e as ErrorLike;
    seen.push(like);
    queue.push(like.cause, like.meta?.driverAdapterError);
  }
  return seen;
}

function isDown(e: ErrorLike): boolean {
  const codes = [e.code, e.errorCode, e.originalCode].filter((c): c is string => typeof c === 'string');
  return (
    codes.some((c) => PRISMA_UNAVAILABLE.has(c) || NETWORK_UNAVAILABLE.has(c) || POSTGRES_UNAVAILABLE.test(c)) ||
    (typeof e.kind === 'string' && ADAPTER_UNAVAILABLE.has(e.kind)) ||
    (typeof e.name === 'string' && STORAGE_UNAVAILABLE.has(e.name)) ||
    (typeof e.$metadata?.httpStatusCode === 'number' && e.$metadata.httpStatusCode >= 500) ||
    (typeof e.message === 'string' && (DROPPED.test(e.message) || REDIS_DOWN.test(e.message))) ||
    e.name === 'MaxRetriesPerRequestError'
  );
}

/** A dependency we need to accept work (PostgreSQL, storage) is down or full: 503, nothing was created. */
export function asUnavailable(error: unknown): DomainError | null {
  return chain(error).some(isDown)
    ? new DomainError(
        'service_unavailable',
        'A dependency of the service is unavailable; nothing was created. Retry with the same Idempotency-Key.',
        {
          headers: { 'Retry-After': '5' },
          cause: error,
        },
      )
    : null;
}
