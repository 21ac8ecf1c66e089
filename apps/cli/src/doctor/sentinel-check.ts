import { describeRedisTarget, type RedisTargetSettings, redisTarget } from '@framedesk/config';
import { sentinelTopology } from '@framedesk/queues';
import { type CheckResult, fail, firstLine, ok, warn } from './check-result';

/** Where Redis is, for doctor's lines: `host:port`, or the Sentinels and the primary's name. */
export const redisWhere = (settings: RedisTargetSettings): string => describeRedisTarget(redisTarget(settings));

/**
 * Under Sentinel: the primary the Sentinels name now and its replicas. A primary without a
 * replica in sync refuses writes (`min-replicas-to-write`) and cannot be failed over: a warning.
 */
export async function checkSentinel(settings: RedisTargetSettings): Promise<CheckResult> {
  try {
    const topology = await sentinelTopology(settings);
    if (!topology) return ok('redis sentinel', 'one Redis (REDIS_URL)');
    const replicas = topology.replicas.map((r) => `${r.address} (${r.state})`).join(', ') || 'none';
    const healthy = topology.replicas.filter((r) => r.state === 'slave').length;
    const message = `primary ${topology.primary}; replicas ${replicas}`;
    return healthy > 0
      ? ok('redis sentinel', message)
      : warn('redis sentinel', message, 'start a replica: without one the primary refuses writes and cannot fail over');
  } catch (error) {
    return fail(
      'redis sentinel',
      `no Sentinel answered (${firstLine(error)})`,
      'check REDIS_SENTINELS and REDIS_SENTINEL_NAME (and REDIS_SENTINEL_PASSWORD)',
    );
  }
}
