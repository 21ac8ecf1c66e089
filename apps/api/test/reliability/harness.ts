// The real api and worker processes on services a test may break: its own database (shared or
// private PostgreSQL), Redis (shared with a prefix, or private) and storage directory.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import pg from 'pg';
import {
  createTestDatabase,
  createTestRedisPrefix,
  freePort,
  makePng,
  runApp,
  type RunningProcess,
  startApp,
  testRedisUrl,
  waitForHttp,
  writeTestConfig,
} from '@framedesk/testing';

const root = resolve(import.meta.dirname, '../../../..');
export const ORIGINALS_BUCKET = 'framedesk-originals';
/** States after which nothing more happens without a reviewer (requires_review: true). */
export const SETTLED = ['needs_review', 'promoted', 'rejected', 'failed'] as const;
/** Generous: a Node API idles at 150–250 MiB; a leak, or bodies buffered in memory, go past it. */
export const API_RSS_BOUND_MIB = 640;
/** The worker decodes images under a pixel limit; a decompression bomb decoded in full goes past it. */
export const WORKER_RSS_BOUND_MIB = 1024;

export interface RelStackOptions {
  /** A migrated database (e.g. on a private cluster); default: a fresh one on the shared server. */
  readonly databaseUrl?: string;
  /** Default: the shared Redis with a prefix of this stack's own. */
  readonly redisUrl?: string;
  /** Default: a fresh temp directory. */
  readonly storageRoot?: string;
  readonly workers?: number;
  readonly env?: Record<string, string>;
  readonly config?: Parameters<typeof writeTestConfig>[2];
}

export interface RelStack {
  readonly apiUrl: string;
  readonly apiPort: number;
  readonly env: Record<string, string>;
  readonly storageRoot: string;
  /** The API process running now (replaced by restartApi). */
  api(): RunningProcess;
  /** Everything every API process of this stack printed. */
  apiOutput(): string;
  readonly workers: RunningProcess[];
  startWorker(extraEnv?: Record<string, string>): Promise<RunningProcess>;
  /** Starts a new API process on the same port (after the old one was stopped or killed). */
  startApi(extraEnv?: Record<string, string>): Promise<void>;
  cli(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
  createAgent(slug: string, channels: string[]): Promise<string>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

export async function startRelStack(options: RelStackOptions = {}): Promise<RelStack> {
  const ownDatabase = options.databaseUrl ? undefined : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? ownDatabase!.url;
  const ownPrefix = options.redisUrl ? undefined : createTestRedisPrefix();
  const scratch = await mkdtemp(join(tmpdir(), 'fd-rel-'));
  const storageRoot = options.storageRoot ?? join(scratch, 'storage');
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const configFile = await writeTestConfig(scratch, apiUrl, options.config);
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redisUrl ?? testRedisUrl(),
    REDIS_PREFIX: ownPrefix?.prefix ?? `fdrel_${randomUUID().slice(0, 8)}`,
    STORAGE_FS_ROOT: storageRoot,
    FRAMEDESK_CONFIG: configFile,
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const apis: RunningProcess[] = [];
  const workers: RunningProcess[] = [];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on('error', () => undefined); // a restarted server drops idle clients; the next query reconnects

  const startApi = async (extraEnv: Record<string, string> = {}) => {
    const api = startApp('api', { ...env, ...extraEnv });
    apis.push(api);
    await waitForHttp(`${apiUrl}/healthz`, 60_000, api);
  };
  const startWorker = async (extraEnv: Record<string, string> = {}) => {
    const port = await freePort();
    const worker = startApp('worker', { ...env, WORKER_HEALTH_PORT: String(port), ...extraEnv });
    workers.push(worker);
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, worker);
    return worker;
  };
  const cli = (args: string[], stdin?: string) => runApp('cli', args, env, stdin);

  const stop = async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop('SIGKILL')));
    await pool.end().catch(() => undefined);
    await ownDatabase?.drop().catch(() => undefined);
    await ownPrefix?.cleanup().catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  };

  try {
    await startApi();
    for (let i = 0; i < (options.workers ?? 1); i++) await startWorker();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    apiUrl,
    apiPort,
    env,
    storageRoot,
    api: () => apis[apis.length - 1]!,
    apiOutput: () => apis.map((a) => a.output()).join(''),
    workers,
    startWorker,
    startApi,
    cli,
    async createAgent(slug, channels) {
      const result = await cli(['agent', 'create', slug, ...channels.flatMap((c) => ['--channel', c]), '--json']);
      if (result.code !== 0) throw new Error(`agent create failed: ${result.stderr}`);
      return (JSON.parse(result.stdout) as { api_key: string }).api_key;
    },
    async query<T>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    stop,
  };
}

export interface ApiAnswer {
  /** 0 when no HTTP answer arrived (connection refused or reset, time-out). */
  readonly status: number;
  readonly body: Record<string, unknown> | null;
  readonly contentType: string;
  readonly error?: string;
  /** `Idempotent-Replayed: true` was set. */
  readonly replayed?: boolean;
  /** The `Retry-After` header, when set. */
  readonly retryAfter?: string | null;
}

export interface FrameInput {
  readonly agent: string;
  readonly channel: string;
  readonly date?: string;
  readonly png?: Buffer;
  readonly idempotencyKey?: string;
  readonly metadata?: Record<string, unknown>;
  readonly timeoutMs?: number;
}

/** POST /v1/frame-submissions the way a well-behaved agent does. */
export async function submitFrame(apiUrl: string, key: string, input: FrameInput): Promise<ApiAnswer> {
  const form = new FormData();
  const metadata = input.metadata ?? {
    agent_slug: input.agent,
    channel_slug: input.channel,
    date: input.date ?? '20260101',
    title: 'reliability',
  };
  form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
  form.append('image', new Blob([new Uint8Array(input.png ?? makePng(32, 24))], { type: 'image/png' }), 'frame.png');
  return call(`${apiUrl}/v1/frame-submissions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': input.idempotencyKey ?? randomUUID() },
    body: form,
    signal: AbortSignal.timeout(input.timeoutMs ?? 30_000),
  });
}

export async function call(url: string, init: RequestInit = {}): Promise<ApiAnswer> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000), ...init });
    const contentType = response.headers.get('content-type') ?? '';
    const text = await response.text();
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = null;
    }
    return {
      status: response.status,
      body,
      contentType,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      retryAfter: response.headers.get('retry-after'),
    };
  } catch (error) {
    return { status: 0, body: null, contentType: '', error: String((error as Error).cause ?? error) };
  }
}

/** Polls the database until every id is settled; returns the statuses seen last. */
export async function waitForSettled(
  stack: RelStack,
  ids: readonly string[],
  timeoutMs: number,
): Promise<Map<string, string>> {
  const deadline = Date.now() + timeoutMs;
  let statuses = new Map<string, string>();
  while (Date.now() < deadline) {
    try {
      const rows = await stack.query<{ id: string; status: string }>(
        'SELECT id, status::text AS status FROM submissions WHERE id = ANY($1)',
        [ids],
      );
      statuses = new Map(rows.map((r) => [r.id, r.status]));
      if (ids.every((id) => (SETTLED as readonly string[]).includes(statuses.get(id) ?? ''))) return statuses;
    } catch {
      // the database may be restarting
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return statuses;
}

/** Every file under `<storage>/<bucket>/originals/`, as storage keys. */
export async function originalFiles(storageRoot: string, bucket = ORIGINALS_BUCKET): Promise<string[]> {
  const base = join(storageRoot, bucket);
  const out: string[] = [];
  const walk = async (dir: string) => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else out.push(relative(base, path));
    }
  };
  await walk(join(base, 'originals'));
  return out.sort();
}

/** Every file (not directory) under `dir`, recursively; none when it does not exist. */
export async function walkFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walkFiles(path)));
    else out.push(path);
  }
  return out;
}

/** Files left in temp places: the bucket's `.tmp/` (atomic writes) and the API's spools. */
export async function leftoverTempFiles(stack: RelStack, bucket = ORIGINALS_BUCKET): Promise<string[]> {
  const dirs = [
    join(stack.storageRoot, bucket, '.tmp'),
    join(stack.storageRoot, '.spool'),
    join(stack.storageRoot, '.uploads'),
  ];
  return (await Promise.all(dirs.map(walkFiles))).flat().map((f) => relative(stack.storageRoot, f));
}

export interface Integrity {
  readonly submissions: number;
  readonly withoutFirstEvent: string[];
  readonly imagesWithoutOriginalRow: string[];
  readonly originalRowsWithoutFile: string[];
  readonly orphanFiles: string[];
}

/** No half-created rows, no orphaned files: what a crash at any point must leave intact. */
export async function checkIntegrity(stack: RelStack): Promise<Integrity> {
  const subs = await stack.query<{ id: string }>('SELECT id FROM submissions');
  const withoutFirstEvent = await stack.query<{ id: string }>(
    'SELECT s.id FROM submissions s WHERE NOT EXISTS (SELECT 1 FROM submission_events e WHERE e.submission_id = s.id)',
  );
  const withoutOriginal = await stack.query<{ id: string }>(
    "SELECT s.id FROM submissions s WHERE s.media_type = 'image' AND NOT EXISTS (SELECT 1 FROM media_objects m WHERE m.submission_id = s.id AND m.kind = 'original')",
  );
  const rows = await stack.query<{ key: string }>(
    "SELECT key FROM media_objects WHERE kind = 'original' AND bucket = $1",
    [ORIGINALS_BUCKET],
  );
  const files = new Set(await originalFiles(stack.storageRoot));
  const keys = new Set(rows.map((r) => r.key));
  return {
    submissions: subs.length,
    withoutFirstEvent: withoutFirstEvent.map((r) => r.id),
    imagesWithoutOriginalRow: withoutOriginal.map((r) => r.id),
    originalRowsWithoutFile: [...keys].filter((k) => !files.has(k)),
    orphanFiles: [...files].filter((f) => !keys.has(f)),
  };
}

/** One line a reader (and docs/reliability.md) can quote. */
export function reportFigures(test: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ test, at: new Date().toISOString(), ...figures });
  console.log(`[reliability] ${line}`);
  mkdirSync(join(root, 'test-results'), { recursive: true });
  appendFileSync(join(root, 'test-results/reliability-figures.jsonl'), `${line}\n`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `q` quantile of `values` (null when empty). */
export const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : null;
};
