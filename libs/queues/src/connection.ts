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

/**
 * Resolves once `redis` is connected and ready, or rejects after `timeoutMs` (or on its first
 * error when `failFast`). A producer connection refuses commands until then (no offline queue):
 * right for the API, which answers 503 meanwhile, but a one-shot command (the CLI) must wait
 * before its first command, or a connection a little slow to open fails it.
 */
export function redisReady(redis: Redis, timeoutMs: number, options: { failFast?: boolean } = {}): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const done = (error?: unknown) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve();
    };
    const onReady = () => done();
    let lastError: unknown;
    const onError = (error: unknown) => {
      lastError = error;
      if (options.failFast) done(error);
    };
    const timer = setTimeout(() => {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      done(new Error(`not ready within ${timeoutMs} ms${cause}`));
    }, timeoutMs);
    redis.on('ready', onReady);
    redis.on('error', onError);
  });
}
