import { type RedisTarget, type RedisTargetSettings, redisTarget } from '@framedesk/config';
import { markRaisedBy } from '@framedesk/domain';
import { type Command, Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/** What to connect to: the settings (one Redis or Sentinel, `redisTarget`), a target, or a URL. */
export type RedisWhere = string | RedisTarget | RedisTargetSettings;

const targetOf = (where: RedisWhere): RedisTarget =>
  typeof where === 'string' ? { kind: 'url', url: where } : 'kind' in where ? where : redisTarget(where);

/**
 * A demoted primary answers writes READONLY until Sentinel has moved its clients away: reconnect
 * at once (through the Sentinels, to the new primary) and, under Sentinel, send the command again.
 * With one Redis the command fails (a transient error, `redisUnreachableReason`) and the
 * connection is opened again, as Redis may be promoted back.
 */
const reconnectOnReadonly =
  (sentinel: boolean) =>
  (error: Error): boolean | 1 | 2 =>
    /^READONLY/.test(error.message) ? (sentinel ? 2 : 1) : false;

type Options = RedisOptions & { replyMapping?: 'legacy' };

/**
 * A client whose errors say they came from Redis (`markRaisedBy`, libs/domain connection-errors):
 * what it emits as `error` (a socket reset reaches BullMQ's workers so) and what its commands
 * reject with, and the same for its duplicates (BullMQ's blocking connections). A reset is then
 * told from PostgreSQL's by what raised it, not by its text.
 */
class MarkedRedis extends Redis {
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error') markRaisedBy(args[0], 'Redis');
    return super.emit(event, ...args);
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const reject = command.reject;
    command.reject = (error: Error) => reject(markRaisedBy(error, 'Redis'));
    return super.sendCommand(command, stream);
  }
}
// Its duplicates are marked too (ioredis's own `duplicate` makes a plain Redis). Assigned, not
// declared: the base declares it generic over the reply mapping, which this factory never changes.
Object.assign(MarkedRedis.prototype, {
  duplicate(this: Redis, override?: Partial<RedisOptions>): Redis {
    return new MarkedRedis({ ...this.options, ...override } as Options);
  },
});

/**
 * The one factory of Redis connections for every process (BullMQ, the image intake, the live
 * queue, rate limits, readiness, tus, the CLI): one Redis (`REDIS_URL`) or the primary the
 * Sentinels name (`REDIS_SENTINELS`), found again by the client after a failover
 * (`failoverDetector`: without it clients stay ~10 s on the demoted primary). BullMQ workers
 * need `maxRetriesPerRequest: null`; producers fail fast so the API can answer 503.
 */
export function createRedis(where: RedisWhere, role: 'worker' | 'producer'): Redis {
  const target = targetOf(where);
  const options: Options =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2_000,
          retryStrategy: (times) => Math.min(times * 200, 2_000),
        };
  if (target.kind === 'url')
    return new MarkedRedis(target.url, { ...options, reconnectOnError: reconnectOnReadonly(false) });
  return new MarkedRedis({
    ...options,
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
    ...(target.password ? { password: target.password } : {}),
    failoverDetector: true,
    reconnectOnError: reconnectOnReadonly(true),
    // While the Sentinels elect (a killed primary: ~2–4 s), keep asking them, never give up.
    sentinelRetryStrategy: (times) => Math.min(times * 100, 1_000),
  });
}

/** The primary and replicas the Sentinels name now (doctor), or null with one Redis. */
export async function sentinelTopology(
  where: RedisWhere,
): Promise<{ primary: string; replicas: { address: string; state: string }[] } | null> {
  const target = targetOf(where);
  if (target.kind === 'url') return null;
  let lastError: unknown = new Error('no Sentinel given');
  for (const { host, port } of target.sentinels) {
    const sentinel = new Redis({
      host,
      port,
      ...(target.sentinelPassword ? { password: target.sentinelPassword } : {}),
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    sentinel.on('error', () => undefined);
    try {
      await sentinel.connect();
      const [ip, primaryPort] = (await sentinel.call('SENTINEL', 'get-master-addr-by-name', target.name)) as string[];
      const rows = (await sentinel.call('SENTINEL', 'replicas', target.name)) as string[][];
      const replicas = rows.map((row) => {
        const field = (name: string) => row[row.indexOf(name) + 1] ?? '?';
        return { address: `${field('ip')}:${field('port')}`, state: field('flags') };
      });
      return { primary: `${ip}:${primaryPort}`, replicas };
    } catch (error) {
      lastError = error;
    } finally {
      sentinel.disconnect();
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
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
