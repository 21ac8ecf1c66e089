import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Agent } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks drive the real processes, as the end-to-end tests do.
import { type Stack, startStack } from '@framedesk/testing';
import { type HttpResult, multipartBody, post } from './http-load';
import { workspaceRoot } from './processes';
import { type S3Meter } from './s3-meter';
import { sleep } from './stats';

/** The project configuration every stack starts from (variants, limits). */
export const exampleConfig = JSON.parse(readFileSync(join(workspaceRoot, 'config/project.example.json'), 'utf8')) as {
  delivery: { vendor_image_variants: string[] };
  media: { multipart_max_bytes: number };
  storage: { vendor_originals_bucket: string };
};

/** What differs from a default stack, recorded in the results. */
export const BENCH_ENV = {
  // One agent key sends thousands of requests a minute here; the default limit (600) would
  // measure the rate limiter, not the ingest path.
  RATE_LIMIT_PER_MINUTE: '100000000',
  // Per-request info lines would be parsed and kept by the harness; warn keeps the pipe quiet.
  // BENCH_LOG_LEVEL=info measures the API at the production default (the lines cost the API's CPU).
  LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
};

export interface BenchStack {
  readonly stack: Stack;
  readonly apiKey: string;
  readonly channel: string;
  readonly agent: string;
  readonly db: pg.Pool;
  readonly config: Record<string, unknown>;
  /** Set when the stack stores on S3 (`--storage=s3`): what it asked of the server. */
  readonly s3?: S3Meter;
  stop(): Promise<void>;
}

export async function startBenchStack(options: {
  workers: number;
  multipartMaxBytes?: number;
  s3?: S3Meter;
}): Promise<BenchStack> {
  let config: Record<string, unknown> = {};
  const stack = await startStack({
    workers: options.workers,
    // startStack runs the apps as production does: bundled JavaScript, no TypeScript transpiler.
    env: { ...BENCH_ENV, ...options.s3?.env },
    config: (c) => {
      if (options.multipartMaxBytes) c['media'].multipart_max_bytes = options.multipartMaxBytes;
      if (options.s3) c['storage'].vendor_originals_bucket = options.s3.bucket;
      config = structuredClone(c);
    },
  });
  try {
    const apiKey = await stack.createAgent('bench-agent', ['bench-channel']);
    const db = new pg.Pool({ connectionString: stack.database.url, max: 2 });
    return {
      stack,
      apiKey,
      channel: 'bench-channel',
      agent: 'bench-agent',
      db,
      config,
      ...(options.s3 ? { s3: options.s3 } : {}),
      async stop() {
        await db.end();
        await stack.stop();
      },
    };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

export const today = () => new Date().toISOString().slice(0, 10).replaceAll('-', '');

/** POST /v1/frame-submissions as an agent does: unique Idempotency-Key, metadata and image parts. */
export function submitFrame(
  s: BenchStack,
  image: readonly Buffer[],
  agent?: Agent,
  apiUrl = s.stack.apiUrl,
): Promise<HttpResult> {
  const body = multipartBody(
    { agent_slug: s.agent, channel_slug: s.channel, date: today(), title: 'bench frame' },
    image,
  );
  return post(
    `${apiUrl}/v1/frame-submissions`,
    body,
    { authorization: `Bearer ${s.apiKey}`, 'idempotency-key': randomUUID() },
    agent,
  );
}

export const submissionId = (result: HttpResult): string | null => {
  if (result.status !== 202) return null;
  return (JSON.parse(result.body) as { id?: string }).id ?? null;
};

/** Polls PostgreSQL until every id has left the in-progress states; returns the final counts. */
export async function waitUntilSettled(
  db: pg.Pool,
  ids: readonly string[],
  timeoutMs: number,
): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ status: string; n: string }>(
      'SELECT status, count(*) AS n FROM submissions WHERE id = ANY($1) GROUP BY status',
      [ids],
    );
    const counts = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    const pending =
      (counts['received'] ?? 0) +
      (counts['media_processing'] ?? 0) +
      ids.length -
      rows.reduce((n, r) => n + Number(r.n), 0);
    if (pending === 0) return counts;
    if (Date.now() > deadline)
      throw new Error(`gave up after ${timeoutMs} ms: ${JSON.stringify(counts)} of ${ids.length}`);
    await sleep(200);
  }
}

/** When each submission entered media_processing and needs_review, from its event rows (ms since epoch). */
export async function transitionTimes(
  db: pg.Pool,
  ids: readonly string[],
): Promise<Map<string, { processing?: number; review?: number }>> {
  const { rows } = await db.query<{ submission_id: string; to_status: string; at: string }>(
    `SELECT submission_id, to_status, extract(epoch FROM created_at) * 1000 AS at FROM submission_events
      WHERE submission_id = ANY($1) AND to_status IN ('media_processing', 'needs_review')`,
    [ids],
  );
  const times = new Map<string, { processing?: number; review?: number }>();
  for (const r of rows) {
    const entry = times.get(r.submission_id) ?? {};
    const at = Number(r.at);
    // A retried job enters media_processing again: the first entry is when work began.
    if (r.to_status === 'media_processing') entry.processing = Math.min(entry.processing ?? at, at);
    else entry.review = at;
    times.set(r.submission_id, entry);
  }
  return times;
}

/** Process ids of the PostgreSQL backends serving this stack's database (the API's pool). */
export async function databaseBackendPids(s: BenchStack): Promise<number[]> {
  const { rows } = await s.db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return rows.map((r) => r.pid);
}

/** Storage keys of the originals of `ids`, as the API recorded them. */
export async function originalKeys(db: pg.Pool, ids: readonly string[]): Promise<{ bucket: string; keys: string[] }> {
  const { rows } = await db.query<{ bucket: string; key: string }>(
    "SELECT bucket, key FROM media_objects WHERE submission_id = ANY($1) AND kind = 'original' ORDER BY submission_id",
    [ids],
  );
  return { bucket: rows[0]?.bucket ?? exampleConfig.storage.vendor_originals_bucket, keys: rows.map((r) => r.key) };
}
