import { Counter, type Registry } from 'prom-client';

/**
 * What a Redis outage or failover costs, counted (docs/operations.md "Redis with Sentinel"):
 * requests let through because a rate limiter could not count them (the limiters fail open: an
 * agent is never refused for our outage), and live-queue streams told to refresh after a switch.
 */
export function createRedisOutageMetrics(registry: Registry) {
  const failOpen = new Counter({
    name: 'framedesk_rate_limit_fail_open_total',
    help: 'Requests let through unlimited because the rate limiter could not reach Redis (fail open), by limiter',
    labelNames: ['limiter'] as const,
    registers: [registry],
  });
  const resyncs = new Counter({
    name: 'framedesk_live_queue_resyncs_total',
    help: 'Live-queue event streams told to refresh (event resync) after their Redis connection was cut or switched',
    registers: [registry],
  });
  return {
    failedOpen: (limiter: string) => failOpen.inc({ limiter }),
    resynced: () => resyncs.inc(),
  };
}

export type RedisOutageMetrics = ReturnType<typeof createRedisOutageMetrics>;

/** `limiter` whose failures (Redis unreachable: the caller fails open) are counted as `name`. */
export function countFailOpen<L extends { hit(...args: never[]): Promise<unknown> }>(
  limiter: L,
  name: string,
  metrics: RedisOutageMetrics,
): L {
  return {
    ...limiter,
    hit: (...args: Parameters<L['hit']>) =>
      limiter.hit(...args).catch((error: unknown) => {
        metrics.failedOpen(name);
        throw error;
      }),
  } as L;
}
