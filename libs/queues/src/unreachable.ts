import { connectionError } from '@framedesk/domain';

// ioredis while Redis is down or restarting (queues, the upload lock, the rate limiter's store).
const REDIS_DOWN =
  /^(Stream isn't writeable|Connection is closed|Reached the max retries per request limit|All sentinels are unreachable|Failed to connect to sentinel)/;

/**
 * What Redis answers during a failover (docs/operations.md "Redis with Sentinel"): a demoted
 * primary refuses writes (READONLY) or has no replica to write with (NOREPLICAS), blocked reads
 * are cut (UNBLOCKED), a node loading its data refuses commands (LOADING), a primary whose
 * replicas lag refuses (MASTERDOWN, TRYAGAIN). None says anything about the request: retry it.
 */
const FAILOVER = /^(READONLY|NOREPLICAS|UNBLOCKED|LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

/** Why this one error means Redis is unreachable or switching primaries, or null. */
export function redisUnreachableReason(error: object): string | null {
  const e = error as { name?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  if (e.name === 'MaxRetriesPerRequestError' || REDIS_DOWN.test(message)) return 'Redis unreachable';
  if (FAILOVER.test(message)) return `Redis switching primaries (${message.split(' ')[0]})`;
  // A connection cut mid-command (the old primary killed or demoted) is Redis's only when its
  // client says so: every client of createRedis marks what it hands out (connection.ts).
  if (connectionError(error)?.dependency === 'Redis') return 'Redis connection reset';
  return null;
}

/** True for an error a failover causes: retried, never counted as a crash or a failed job. */
export const isRedisTransient = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && redisUnreachableReason(error) !== null;
