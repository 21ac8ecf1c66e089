// ioredis while Redis is down or restarting (queues, the upload lock, the rate limiter's store).
const REDIS_DOWN = /^(Stream isn't writeable|Connection is closed|Reached the max retries per request limit)/;

/** Why this one error means Redis is unreachable, or null. */
export function redisUnreachableReason(error: object): string | null {
  const e = error as { name?: unknown; message?: unknown };
  if (e.name === 'MaxRetriesPerRequestError' || (typeof e.message === 'string' && REDIS_DOWN.test(e.message)))
    return 'Redis unreachable';
  return null;
}
