import { describeRedisTarget, redisTarget, type RedisTargetSettings, type Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import { videoToolVersion } from '@framedesk/media';
import type { QueueName, Redis } from '@framedesk/queues';
import { describeStorageProblem, type ObjectStorage } from '@framedesk/storage';

/** What a queue's jobs need from this machine before a worker takes them. */
export type Need = 'postgres' | 'redis' | 'storage' | 'ffprobe' | 'ffmpeg';

/** `noAnswer`: the check got no answer in time (the dependency may be there and this machine busy). */
export type NeedCheck =
  | { readonly ok: true; readonly version?: string }
  | { readonly ok: false; readonly reason: string; readonly noAnswer?: boolean };

/** Per queue: the video queue needs ffprobe and ffmpeg only when this server probes videos itself. */
export function needsOf(queue: QueueName, settings: Pick<Settings, 'VIDEO_PROVIDER'>): Need[] {
  switch (queue) {
    case 'image-processing':
      return ['postgres', 'redis', 'storage'];
    case 'video-processing':
      return settings.VIDEO_PROVIDER === 'local'
        ? ['postgres', 'redis', 'storage', 'ffprobe', 'ffmpeg']
        : ['postgres', 'redis', 'storage'];
    case 'upload-expiry':
    case 'maintenance':
      return ['postgres', 'redis'];
  }
}

export interface NeedCheckDeps {
  readonly settings: Pick<Settings, 'DATABASE_URL' | 'FFPROBE_PATH' | 'FFMPEG_PATH' | 'STORAGE_DRIVER'> &
    RedisTargetSettings;
  readonly db: Pick<Database, 'ping'>;
  readonly redis: Pick<Redis, 'ping'>;
  readonly storage: Pick<ObjectStorage, 'ping'>;
  readonly bucket: string;
  readonly timeoutMs?: number;
}

/** A check that got no answer in time: the dependency may be fine and this machine busy. */
class NoAnswerError extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerError(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A server's check: answered → ok; refused → `refused(error)`; no answer within `ms` → `silent`,
 * marked `noAnswer` (the server may be running and this machine too busy to hear it in time: the
 * operator is not told to start it, and the queue gates give it a second check).
 */
function serverCheck(
  work: Promise<unknown>,
  ms: number,
  what: string,
  silent: string,
  refused: (error: unknown) => string,
): Promise<NeedCheck> {
  return withTimeout(work, ms, what).then(
    () => ({ ok: true }),
    (error: unknown) =>
      error instanceof NoAnswerError
        ? { ok: false, reason: silent, noAnswer: true }
        : { ok: false, reason: refused(error), noAnswer: false },
  );
}

/** PostgreSQL's or Redis's check: what it says when refused and when it got no answer. */
function networkServerCheck(work: Promise<unknown>, ms: number, what: string, where: string, fix: string) {
  return serverCheck(
    work,
    ms,
    what,
    `${what} at ${where} did not answer within the check's time (busy or unreachable); if it persists: ${fix}`,
    () => `${what} not reachable at ${where}; ${fix}`,
  );
}

const message = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));

/** Where a connection URL points, without its credentials. */
export function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol.startsWith('redis') ? '6379' : '5432')}`;
  } catch {
    return 'an unparsable URL';
  }
}

/** Runs the checks for `needs` in parallel; each failure says what is missing and how to fix it. */
export async function checkNeeds(needs: ReadonlySet<Need>, deps: NeedCheckDeps): Promise<Map<Need, NeedCheck>> {
  const ms = deps.timeoutMs ?? 5_000;
  const { settings } = deps;
  const checks: Record<Need, () => Promise<NeedCheck>> = {
    postgres: () =>
      networkServerCheck(
        deps.db.ping(),
        ms,
        'PostgreSQL',
        hostOf(settings.DATABASE_URL),
        'start it or fix DATABASE_URL',
      ),
    redis: () =>
      networkServerCheck(
        deps.redis.ping(),
        ms,
        'Redis',
        describeRedisTarget(redisTarget(settings)),
        `start it or fix ${settings.REDIS_SENTINELS ? 'REDIS_SENTINELS' : 'REDIS_URL'}`,
      ),
    storage: () =>
      serverCheck(
        deps.storage.ping(deps.bucket),
        ms,
        'storage',
        `storage (${settings.STORAGE_DRIVER}) did not answer within the check's time (busy or unreachable)`,
        (error) => describeStorageProblem(error, settings.STORAGE_DRIVER, deps.bucket).line,
      ),
    ffprobe: () =>
      videoToolVersion('ffprobe', settings.FFPROBE_PATH, ms).then(
        (version) => ({ ok: true, version }),
        (error: unknown) => ({
          ok: false,
          reason: `${message(error)}; install ffmpeg (Debian: apt-get install ffmpeg) or set FFPROBE_PATH`,
        }),
      ),
    ffmpeg: () =>
      videoToolVersion('ffmpeg', settings.FFMPEG_PATH, ms).then(
        (version) => ({ ok: true, version }),
        (error: unknown) => ({
          ok: false,
          reason: `${message(error)}; install ffmpeg (Debian: apt-get install ffmpeg) or set FFMPEG_PATH`,
        }),
      ),
  };
  const entries = await Promise.all([...needs].map(async (need) => [need, await checks[need]()] as const));
  return new Map(entries);
}
