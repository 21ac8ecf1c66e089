import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/**
 * A Redis connection for BullMQ and rate limiting. BullMQ workers need
 * `maxRetriesPerRequest: null`; producers fail fast so the API can answer 503.
 */
export function createRedis(url: string, role: 'worker' | 'producer'): Redis {
  const options: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2_000,
          retryStrategy: (times) => Math.min(times * 200, 2_000),
        };
  return new Redis(url, options);
}
