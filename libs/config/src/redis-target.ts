/** Where a process finds Redis: one server (`REDIS_URL`) or the primary the Sentinels name. */
export type RedisTarget =
  | { readonly kind: 'url'; readonly url: string }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly { readonly host: string; readonly port: number }[];
      readonly name: string;
      readonly sentinelPassword?: string;
      readonly password?: string;
    };

/** `host:port,host:port` → the Sentinels, or null when one part is not a host and a port. */
export function parseSentinels(list: string): { host: string; port: number }[] | null {
  const parts = list
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const sentinels = parts.map((part) => {
    const match = /^(.+):(\d{1,5})$/.exec(part);
    const port = Number(match?.[2]);
    return match && port > 0 && port < 65536 ? { host: match[1]!.replace(/^\[|\]$/g, ''), port } : null;
  });
  return sentinels.length > 0 && sentinels.every(Boolean) ? (sentinels as { host: string; port: number }[]) : null;
}

export interface RedisTargetSettings {
  readonly REDIS_URL: string;
  readonly REDIS_SENTINELS: string;
  readonly REDIS_SENTINEL_NAME: string;
  readonly REDIS_SENTINEL_PASSWORD?: string | undefined;
  readonly REDIS_PASSWORD?: string | undefined;
}

/** The one place that decides between one Redis and Sentinel (every connection of every process). */
export function redisTarget(settings: RedisTargetSettings): RedisTarget {
  const sentinels = settings.REDIS_SENTINELS ? parseSentinels(settings.REDIS_SENTINELS) : null;
  if (!sentinels) return { kind: 'url', url: settings.REDIS_URL };
  return {
    kind: 'sentinel',
    sentinels,
    name: settings.REDIS_SENTINEL_NAME,
    ...(settings.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: settings.REDIS_SENTINEL_PASSWORD } : {}),
    ...(settings.REDIS_PASSWORD ? { password: settings.REDIS_PASSWORD } : {}),
  };
}

/** For messages: `127.0.0.1:6379`, or `Sentinel framedesk via 10.0.0.1:26379,…` (never a password). */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === 'sentinel')
    return `Sentinel ${target.name} via ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
  try {
    const url = new URL(target.url);
    return `${url.hostname}:${url.port || 6379}`;
  } catch {
    return 'an unparsable REDIS_URL';
  }
}
