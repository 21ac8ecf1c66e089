import { checkScoring } from './scoring-check';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEVELOPMENT_SESSION_SECRET,
  loadSettings,
  readProjectConfig,
  resolveProjectConfigPath,
  type ProjectConfig,
  type Settings,
  SettingsError,
} from '@framedesk/config';
import { videoToolVersion } from '@framedesk/media';
import {
  createQueueProducer,
  createRedis,
  createWorkerStatusStore,
  QUEUE_NAMES,
  type Redis,
  redisReady,
} from '@framedesk/queues';
import { createStorage, describeStorageProblem } from '@framedesk/storage';
import pg from 'pg';
import { type CheckResult, fail, firstLine, ok, warn } from './check-result';
import { checkMediaSample, checkPendingDeletions } from './media-check';
import { checkMetrics } from './metrics';
import { checkPolicies } from './policy-check';
import { checkDatabaseRoles } from './replica-check';
import { checkSentinel, redisWhere } from './sentinel-check';
import { checkSignIn } from './sign-in';

export type { CheckResult, CheckStatus } from './check-result';

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const where = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol.startsWith('redis') ? 6379 : 5432)}`;
  } catch {
    return 'an unparsable URL';
  }
};

/** The environment; a development SESSION_SECRET in production is its own failure, the rest still checked. */
export function checkSettings(env: NodeJS.ProcessEnv): { results: CheckResult[]; settings: Settings | null } {
  try {
    const settings = loadSettings(env);
    const secret =
      settings.NODE_ENV === 'production'
        ? ok('session secret', 'SESSION_SECRET is set (not the development placeholder)')
        : ok('session secret', `development placeholder allowed (NODE_ENV=${settings.NODE_ENV})`);
    return { results: [ok('settings', 'environment valid'), secret], settings };
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    const secretOnly = error.violations.every((v) => v.path === '/SESSION_SECRET');
    const results: CheckResult[] = [];
    if (error.violations.some((v) => v.path === '/SESSION_SECRET'))
      results.push(
        fail(
          'session secret',
          'SESSION_SECRET is the development placeholder (or too short) with NODE_ENV=production',
          'set SESSION_SECRET to a long random secret, e.g. `openssl rand -hex 32`',
        ),
      );
    const others = error.violations.filter((v) => v.path !== '/SESSION_SECRET');
    if (others.length > 0)
      results.push(
        fail(
          'settings',
          `environment invalid: ${others.map((v) => `${v.path.slice(1)} ${v.message}`).join('; ')}`,
          'fix these variables (README, "Settings")',
        ),
      );
    if (!secretOnly) return { results, settings: null };
    // Go on with the other checks as if the secret were fine.
    return {
      results: [ok('settings', 'environment valid apart from SESSION_SECRET'), ...results],
      settings: loadSettings({ ...env, SESSION_SECRET: `${DEVELOPMENT_SESSION_SECRET}-doctor` }),
    };
  }
}

export function checkConfig(settings: Settings): { result: CheckResult; config: ProjectConfig | null } {
  const file = resolveProjectConfigPath(settings.FRAMEDESK_CONFIG, settings.workspaceRoot);
  try {
    return { result: ok('configuration', `${file} valid`), config: readProjectConfig(file) };
  } catch (error) {
    return {
      result: fail('configuration', `${file}: ${firstLine(error)}`, `npm run -s cli -- config check ${file}`),
      config: null,
    };
  }
}

export async function checkPostgres(settings: Settings): Promise<CheckResult[]> {
  const client = new pg.Client({ connectionString: settings.DATABASE_URL, connectionTimeoutMillis: 5_000 });
  try {
    await withTimeout(client.connect(), 6_000, 'PostgreSQL');
  } catch (error) {
    await client.end().catch(() => undefined);
    return [
      fail(
        'postgresql',
        `not reachable at ${where(settings.DATABASE_URL)} (${firstLine(error)})`,
        'start PostgreSQL (npm start does) or fix DATABASE_URL',
      ),
    ];
  }
  try {
    const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
    const results = [ok('postgresql', `PostgreSQL ${version} at ${where(settings.DATABASE_URL)}`)];
    const committed = readdirSync(join(settings.workspaceRoot, 'prisma/migrations'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const history = await client.query<{ t: string | null; s: string | null }>(
      "SELECT to_regclass('_prisma_migrations')::text AS t, to_regclass('submissions')::text AS s",
    );
    if (!history.rows[0]?.t) {
      results.push(
        history.rows[0]?.s
          ? warn('migrations', 'schema present but no migration history (applied without prisma migrate?)')
          : fail('migrations', 'the database has no schema', 'npm run db:migrate'),
      );
      return results;
    }
    const applied = new Set(
      (
        await client.query<{ migration_name: string }>(
          'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
        )
      ).rows.map((row) => row.migration_name),
    );
    const pending = committed.filter((name) => !applied.has(name));
    results.push(
      pending.length === 0
        ? ok('migrations', `${committed.length} applied`)
        : fail(
            'migrations',
            `${pending.length} not applied (${pending.slice(0, 3).join(', ')}…)`,
            'npm run db:migrate',
          ),
    );
    return results;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function configValue(redis: Redis, name: string): Promise<string | null> {
  return (redis.call('CONFIG', 'GET', name) as Promise<string[]>).then((pair) => pair[1] ?? null).catch(() => null);
}

export async function checkRedis(settings: Settings, redis: Redis): Promise<{ results: CheckResult[]; up: boolean }> {
  let info: string;
  try {
    info = await withTimeout(
      redisReady(redis, 5_000, { failFast: true }).then(() => redis.info()),
      5_000,
      'Redis',
    );
  } catch (error) {
    return {
      up: false,
      results: [
        fail(
          'redis',
          `not reachable at ${redisWhere(settings)} (${firstLine(error)})`,
          settings.REDIS_SENTINELS
            ? 'check the Sentinels (REDIS_SENTINELS, REDIS_SENTINEL_NAME) and that they name a primary'
            : 'start Redis (npm start does) or fix REDIS_URL',
        ),
      ],
    };
  }
  const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  const results = [ok('redis', `Redis ${field('redis_version') ?? '?'} at ${redisWhere(settings)}`)];
  if (settings.REDIS_SENTINELS) results.push(await checkSentinel(settings));
  const policy = await configValue(redis, 'maxmemory-policy');
  const maxmemory = Number(await configValue(redis, 'maxmemory')) || 0;
  if (policy === null) results.push(warn('redis eviction', 'cannot read maxmemory-policy (CONFIG disabled?)'));
  else if (policy === 'noeviction') results.push(ok('redis eviction', 'maxmemory-policy noeviction'));
  else if (maxmemory > 0)
    results.push(
      fail(
        'redis eviction',
        `maxmemory-policy ${policy}: Redis may evict queue keys and lose jobs`,
        'CONFIG SET maxmemory-policy noeviction (and in redis.conf)',
      ),
    );
  else results.push(warn('redis eviction', `maxmemory-policy ${policy} (no maxmemory set yet)`, 'use noeviction'));
  const aof = field('aof_enabled') === '1';
  const rdb = (await configValue(redis, 'save')) ?? '';
  results.push(
    aof
      ? ok('redis persistence', 'append-only file on')
      : rdb
        ? warn(
            'redis persistence',
            `snapshots only (save ${rdb}): jobs since the last one are lost on a crash`,
            'appendonly yes, appendfsync everysec',
          )
        : warn(
            'redis persistence',
            'off: queued jobs are lost when Redis restarts',
            'appendonly yes, appendfsync everysec',
          ),
  );
  return { results, up: true };
}

export async function checkStorage(settings: Settings, config: ProjectConfig): Promise<CheckResult> {
  const bucket = config.storage.vendor_originals_bucket;
  const target = settings.STORAGE_DRIVER === 'fs' ? join(settings.STORAGE_FS_ROOT, bucket) : `bucket ${bucket}`;
  try {
    await withTimeout(createStorage(settings).ping(bucket), 10_000, 'storage');
    return ok('storage', `${settings.STORAGE_DRIVER}: ${target} writable`);
  } catch (error) {
    if (settings.STORAGE_DRIVER === 'fs')
      return fail(
        'storage',
        `fs: ${target} not writable (${firstLine(error)})`,
        'make STORAGE_FS_ROOT writable by this user',
      );
    const { problem, fix } = describeStorageProblem(error, 's3', bucket);
    return fail('storage', problem, fix);
  }
}

/** Required with the local video provider (the worker probes videos itself); informative otherwise. */
export async function checkVideoTools(settings: Settings): Promise<CheckResult[]> {
  const required = settings.VIDEO_PROVIDER === 'local';
  const tools = [
    ['ffprobe', settings.FFPROBE_PATH, 'FFPROBE_PATH'],
    ['ffmpeg', settings.FFMPEG_PATH, 'FFMPEG_PATH'],
  ] as const;
  return Promise.all(
    tools.map(async ([tool, path, setting]) => {
      try {
        return ok(tool, await videoToolVersion(tool, path));
      } catch (error) {
        const fix = `install ffmpeg (Debian: apt-get install ffmpeg; macOS: brew install ffmpeg) or set ${setting}`;
        const message = `${firstLine(error)}: video processing waits until it is there (images work)`;
        return required
          ? fail(tool, message, fix)
          : warn(tool, `${firstLine(error)} (not needed with ${settings.VIDEO_PROVIDER})`);
      }
    }),
  );
}

export async function checkVideoProvider(settings: Settings, fetchImpl: typeof fetch = fetch): Promise<CheckResult[]> {
  if (settings.VIDEO_PROVIDER === 'local')
    return [ok('video provider', 'local: the API receives uploads, the worker probes them')];
  const results: CheckResult[] = [];
  const url = `${settings.CLOUDFLARE_API_BASE}/accounts/${settings.CLOUDFLARE_ACCOUNT_ID}/stream?per_page=1`;
  try {
    const response = await fetchImpl(url, {
      headers: { Authorization: `Bearer ${settings.CLOUDFLARE_API_TOKEN}` },
      signal: AbortSignal.timeout(10_000),
    });
    results.push(
      response.ok
        ? ok('video provider', `cloudflare: account ${settings.CLOUDFLARE_ACCOUNT_ID} answers`)
        : fail(
            'video provider',
            `cloudflare answered ${response.status} for account ${settings.CLOUDFLARE_ACCOUNT_ID}`,
            'check CLOUDFLARE_ACCOUNT_ID and that CLOUDFLARE_API_TOKEN has Stream:Edit',
          ),
    );
  } catch (error) {
    results.push(
      fail(
        'video provider',
        `cloudflare API unreachable at ${settings.CLOUDFLARE_API_BASE} (${firstLine(error)})`,
        'check the network and CLOUDFLARE_API_BASE',
      ),
    );
  }
  if (!settings.CLOUDFLARE_WEBHOOK_SECRET)
    results.push(
      warn(
        'video webhook',
        'CLOUDFLARE_WEBHOOK_SECRET not set: status comes by polling only',
        'register the Stream webhook',
      ),
    );
  return results;
}

/** Worker processes seen per queue (BullMQ's count) and, where none consumes, why (their readiness reports). */
export async function checkWorkers(settings: Settings, redis: Redis): Promise<CheckResult[]> {
  const producer = createQueueProducer(redis, settings.REDIS_PREFIX);
  try {
    const reports = await createWorkerStatusStore(redis, settings.REDIS_PREFIX).readiness();
    return await Promise.all(
      QUEUE_NAMES.map(async (queue) => {
        const n = await producer.queue(queue).getWorkersCount();
        if (n > 0) return ok(`workers ${queue}`, `${n} worker${n === 1 ? '' : 's'} consuming`);
        const reasons = [...new Set(reports.flatMap((r) => (r.queues[queue]?.reason ? [r.queues[queue].reason] : [])))];
        return warn(
          `workers ${queue}`,
          reasons.length > 0 ? `no worker consuming: ${reasons.join('; ')}` : 'no worker consuming',
          reasons.length > 0
            ? 'see the reason; the worker picks the queue up by itself once fixed'
            : 'start a worker (npm start runs one)',
        );
      }),
    );
  } finally {
    await producer.close();
  }
}

/** Every check, in order; a check that cannot run for lack of an earlier one is left out. */
export async function runDoctor(env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const { results, settings } = checkSettings(env);
  if (!settings) return results;
  const { result, config } = checkConfig(settings);
  results.push(result, checkMetrics(settings));
  const redis = createRedis(settings, 'producer');
  redis.on('error', () => undefined);
  try {
    const [postgres, redisChecks, storage, tools, provider, signIn, scoring] = await Promise.all([
      checkPostgres(settings).then(async (checks) =>
        checks.every((c) => c.status === 'ok') ? [...checks, ...(await checkDatabaseRoles(settings))] : checks,
      ),
      checkRedis(settings, redis),
      config ? checkStorage(settings, config) : null,
      checkVideoTools(settings),
      checkVideoProvider(settings),
      checkSignIn(settings, config),
      checkScoring(settings),
    ]);
    results.push(...postgres, ...redisChecks.results, ...(storage ? [storage] : []), ...tools, ...provider, ...signIn);
    results.push(scoring);
    if (redisChecks.up) results.push(...(await checkWorkers(settings, redis)));
    const databaseReady = postgres.every((check) => check.status === 'ok' || check.name === 'read replica');
    if (databaseReady && config && storage?.status === 'ok') results.push(await checkMediaSample(settings, config));
    if (databaseReady) results.push(await checkPendingDeletions(settings));
    if (databaseReady) results.push(await checkPolicies(settings));
  } finally {
    redis.disconnect();
  }
  return results;
}
