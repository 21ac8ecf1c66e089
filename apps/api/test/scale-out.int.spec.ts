// Several instances for real: two API processes (each with its own STORAGE_FS_ROOT, as on two
// machines) and two worker processes, on S3 storage (a real S3 server: Ceph RGW, the rgw engine), one database and one Redis
// prefix. Resumable uploads move between instances, one writer per upload holds across
// processes, a killed API loses only the bytes in flight, and both workers share the jobs.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { apiKeysService } from '@framedesk/access';
import { createDatabase } from '@framedesk/db';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedisPrefix,
  freePort,
  makeClip,
  makePng,
  type RunningProcess,
  startApp,
  startTestS3,
  type TestS3,
  type TestDatabase,
  testRedisUrl,
  waitForHttp,
  writeTestConfig,
} from '@framedesk/testing';

const root = resolve(import.meta.dirname, '../../..');
const TUS = { 'Tus-Resumable': '1.0.0' };
const OCTET = { ...TUS, 'Content-Type': 'application/offset+octet-stream' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A PATCH that sends `first` bytes, then waits for `gate` before sending the rest. */
function heldPatch(url: string, offset: number, body: Buffer, first: number, gate: Promise<void>) {
  return new Promise<number>((resolve) => {
    const req = httpRequest(url, {
      method: 'PATCH',
      headers: { ...OCTET, 'Upload-Offset': String(offset), 'Content-Length': String(body.length) },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.write(body.subarray(0, first), () => void gate.then(() => req.end(body.subarray(first))));
  });
}

// Each case waits on real processing by real processes; on a busy machine that takes a while.
describe('scale-out: two APIs, two workers, S3 storage, one database and Redis prefix', { timeout: 120_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'fd-scale-'));
  // The processes run the production build (inside the repository, so node_modules resolve).
  const build = join(root, 'dist', `.scale-test-${randomBytes(4).toString('hex')}`);
  let s3: TestS3;
  let database: TestDatabase;
  let redisPrefix: ReturnType<typeof createTestRedisPrefix>;
  let redis: Redis;
  let sql: pg.Client;
  let env: Record<string, string>;
  const api: Record<'A' | 'B', { url: string; port: number; process?: RunningProcess }> = {
    A: { url: '', port: 0 },
    B: { url: '', port: 0 },
  };
  const workers: RunningProcess[] = [];
  let key: string;
  let clip: Buffer;

  const tmpOf = (name: 'A' | 'B') => {
    const dir = join(work, `tmp-${name}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  /**
   * Resolves once API `name`'s tus store is streaming a PATCH's bytes into parts: its first
   * part file (`<10 chars>-0`, @tus/utils' StreamSplitter) exists, so the store has already read
   * the upload's incomplete part, and upstream @tus/s3-store has deleted it.
   */
  const storeStreaming = async (name: 'A' | 'B') => {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (readdirSync(tmpOf(name)).some((file) => /^[\w-]{10}-0$/.test(file))) return true;
      await sleep(25);
    }
    return false;
  };
  const startApi = async (name: 'A' | 'B') => {
    const proc = startApp(
      'api',
      {
        ...env,
        API_PORT: String(api[name].port),
        STORAGE_FS_ROOT: join(work, `api-${name}`),
        // Its own temporary directory, so a test can see where a tus write has got to.
        TMPDIR: tmpOf(name),
      },
      [],
      { entry: join(build, 'api/main.mjs') },
    );
    api[name].process = proc;
    await waitForHttp(`${api[name].url}/healthz`, 60_000, proc);
  };
  const startWorker = async (n: number) => {
    const port = await freePort();
    const proc = startApp(
      'worker',
      { ...env, WORKER_HEALTH_PORT: String(port), STORAGE_FS_ROOT: join(work, `worker-${n}`) },
      [],
      { entry: join(build, 'worker/main.mjs') },
    );
    workers.push(proc);
    // Ready, not only alive: a worker whose first checks did not answer in time (a loaded
    // machine) keeps its queues closed until one does, and the other worker took every image
    // of "processed by both workers" (clean clone, 2026-11-29 09:11).
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, proc);
  };
  const statusesOf = async (ids: string[]) => {
    const { rows } = await sql.query<{ id: string; status: string }>(
      'SELECT id, status FROM submissions WHERE id = ANY($1)',
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r.status]));
    return ids.map((id) => String(byId.get(id)));
  };
  const waitFor = async (ids: string[], status: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      seen = await statusesOf(ids);
      if (seen.every((s) => s === status)) return seen;
      await sleep(200);
    }
    return seen;
  };
  const on = (name: 'A' | 'B', url: string) => {
    const u = new URL(url);
    return `${api[name].url}${u.pathname}${u.search}`;
  };
  const newTusSession = async (via: 'A' | 'B') => {
    const response = await fetch(`${api[via].url}/v1/media-uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({
        agent_slug: 'cam',
        channel_slug: 'news',
        media_type: 'video',
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: clip.length,
      }),
    });
    const body = (await response.json()) as { id: string; submission_id: string; upload_url: string };
    expect(response.status, JSON.stringify(body)).toBe(201);
    return { uploadId: body.id, submissionId: body.submission_id, url: body.upload_url };
  };
  const headOffset = async (url: string) => {
    const response = await fetch(url, { method: 'HEAD', headers: TUS });
    return { status: response.status, offset: Number(response.headers.get('upload-offset')) };
  };
  const storedOriginal = async (submissionId: string) =>
    (
      await sql.query<{ sha256: string; byte_size: string }>(
        "SELECT sha256, byte_size::text FROM media_objects WHERE submission_id = $1 AND kind = 'original'",
        [submissionId],
      )
    ).rows[0];
  const submitImage = async (via: 'A' | 'B', i: number, width: number) => {
    const form = new FormData();
    form.append(
      'metadata',
      new Blob([JSON.stringify({ agent_slug: 'cam', channel_slug: 'news', date: '20260101', title: `f${i}` })], {
        type: 'application/json',
      }),
    );
    form.append(
      'image',
      new Blob([new Uint8Array(makePng(width, Math.round((width * 3) / 4), { seed: i }))], { type: 'image/png' }),
      'f.png',
    );
    const response = await fetch(`${api[via].url}/v1/frame-submissions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
      body: form,
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { id: string }).id;
  };

  /** Resolves once some process holds the upload's lock in Redis (it is writing). */
  const lockHeld = async (uploadId: string) => {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if ((await redis.exists(`${redisPrefix.prefix}:tus-lock:${uploadId}`)) === 1) return true;
      await sleep(25);
    }
    return false;
  };

  beforeAll(async () => {
    execFileSync(process.execPath, ['tools/build.mjs', 'api', 'worker', `--out=${build}`], { cwd: root });
    clip = readFileSync(makeClip(work, 'clip.mp4', 2));
    s3 = await startTestS3(['framedesk-originals']);
    database = await createTestDatabase();
    redisPrefix = createTestRedisPrefix();
    redis = new Redis(testRedisUrl());
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    api.A.port = await freePort();
    api.B.port = await freePort();
    api.A.url = `http://127.0.0.1:${api.A.port}`;
    api.B.url = `http://127.0.0.1:${api.B.port}`;
    env = {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: redisPrefix.prefix,
      ...s3.env,
      // Behind a load balancer this is its address; here A stands in for it.
      FRAMEDESK_CONFIG: await writeTestConfig(work, api.A.url, (config) => {
        // Every clip above 1 kB goes over tus.
        config.media.small_video_max_bytes = 1000;
        config.storage.vendor_originals_bucket = s3.buckets['framedesk-originals']!;
      }),
      API_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '100000',
      WORKER_CONCURRENCY: '2',
    };
    await Promise.all([startApi('A'), startApi('B'), startWorker(1), startWorker(2)]);
    const db = createDatabase({ url: database.url, poolSize: 1 });
    try {
      const agent = await db.repos.agents.create('cam');
      await db.repos.agents.allowChannels(agent.id, [(await db.repos.channels.ensure('news')).channel.id]);
      key = (await apiKeysService(db).issue(agent.id)).key;
    } finally {
      await db.close();
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([api.A.process?.stop(), api.B.process?.stop(), ...workers.map((w) => w.stop())]);
    await sql?.end();
    redis?.disconnect();
    await database?.drop();
    await redisPrefix?.cleanup();
    await s3?.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(build, { recursive: true, force: true });
  });

  it('a tus upload begun on A is finished on B and reaches needs_review', async () => {
    const session = await newTusSession('A');
    const created = await fetch(on('A', session.url), {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': String(clip.length) },
    });
    expect(created.status).toBe(201);
    const third = Math.floor(clip.length / 3);
    const first = await fetch(on('A', session.url), {
      method: 'PATCH',
      headers: { ...OCTET, 'Upload-Offset': '0' },
      body: clip.subarray(0, third),
    });
    expect(first.status).toBe(204);
    expect(await headOffset(on('B', session.url))).toEqual({ status: 200, offset: third });
    const rest = await fetch(on('B', session.url), {
      method: 'PATCH',
      headers: { ...OCTET, 'Upload-Offset': String(third) },
      body: clip.subarray(third),
    });
    expect(rest.status).toBe(204);
    expect(await waitFor([session.submissionId], 'needs_review')).toEqual(['needs_review']);
    expect(await storedOriginal(session.submissionId)).toEqual({
      sha256: sha256(clip),
      byte_size: String(clip.length),
    });
  });

  it('two PATCHes of one upload at once, on A and on B: exactly one wins, the other gets a 4xx, the upload ends intact', async () => {
    const session = await newTusSession('B');
    const created = await fetch(on('B', session.url), {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': String(clip.length) },
    });
    expect(created.status).toBe(201);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // A holds the upload: half its body is sent, the rest waits until B was answered.
    const onA = heldPatch(on('A', session.url), 0, clip, Math.floor(clip.length / 2), gate);
    expect(await lockHeld(session.uploadId)).toBe(true);
    const onB = await fetch(on('B', session.url), {
      method: 'PATCH',
      headers: { ...OCTET, 'Upload-Offset': '0' },
      body: clip,
    });
    release();
    const statuses = [await onA, onB.status].sort();
    expect(statuses[0]).toBe(204);
    expect(statuses[1]).toBeGreaterThanOrEqual(400);
    expect(statuses[1]).toBeLessThan(500);
    expect(await waitFor([session.submissionId], 'needs_review')).toEqual(['needs_review']);
    expect(await storedOriginal(session.submissionId)).toEqual({
      sha256: sha256(clip),
      byte_size: String(clip.length),
    });
  });

  it('images spread over A and B are processed by both workers, and every variant URL works on either instance', async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => submitImage(i % 2 ? 'B' : 'A', i, 96)));
    expect(await waitFor(ids, 'needs_review')).toEqual(ids.map(() => 'needs_review'));
    for (const worker of workers) expect(worker.output()).toContain('image processed');
    for (const id of ids) {
      const resource = await fetch(`${api.B.url}/v1/frame-submissions/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const { variants } = (await resource.json()) as { variants: Record<string, string> };
      expect(Object.keys(variants).length).toBeGreaterThan(0);
      for (const [name, url] of Object.entries(variants)) {
        const [a, b] = await Promise.all([fetch(on('A', url)), fetch(on('B', url))]);
        // `public` is made when a frame is promoted (docs/api.md, "Variants"): in review, either
        // instance answers 202 with Retry-After, never 404.
        if (name === 'public') {
          expect([a.status, b.status]).toEqual([202, 202]);
          expect([a.headers.get('retry-after'), b.headers.get('retry-after')]).toEqual(['30', '30']);
          continue;
        }
        expect([a.status, b.status]).toEqual([200, 200]);
        expect(Buffer.from(await a.arrayBuffer()).equals(Buffer.from(await b.arrayBuffer()))).toBe(true);
      }
    }
  });

  it('a worker SIGTERMed mid-batch loses nothing', async () => {
    // Large enough that the batch is still running when the signal lands.
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => submitImage(i % 2 ? 'B' : 'A', 100 + i, 1200)));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await statusesOf(ids)).every((s) => s !== 'needs_review')) await sleep(50);
    expect(await workers[0]!.stop('SIGTERM')).toBe(0);
    expect(await waitFor(ids, 'needs_review', 90_000)).toEqual(ids.map(() => 'needs_review'));
  });

  it('API A SIGKILLed mid-PATCH: the client resumes on B from the offset B reports', async () => {
    const session = await newTusSession('B');
    const third = Math.floor(clip.length / 3);
    const first = await fetch(on('A', session.url), {
      method: 'PATCH',
      headers: { ...OCTET, 'Upload-Offset': '0' },
      body: clip.subarray(0, third),
    });
    expect(first.status).toBe(204);
    const never = new Promise<void>(() => undefined);
    const dying = heldPatch(
      on('A', session.url),
      third,
      clip.subarray(third),
      Math.floor((clip.length - third) / 2),
      never,
    );
    expect(await lockHeld(session.uploadId)).toBe(true);
    expect(await storeStreaming('A')).toBe(true);
    await api.A.process!.stop('SIGKILL');
    expect(await dying).toBe(0);
    // B answers once the dead holder's lock has expired (its TTL: 4–6 s left at the kill, longer
    // than a HEAD waits); until then 423, which the client retries. Never 409: to a HEAD that says
    // "complete", and the fleet's uploader stopped on it (issue 28).
    let head = await headOffset(on('B', session.url));
    const refusals: number[] = [];
    const deadline = Date.now() + 30_000;
    while (head.status !== 200 && Date.now() < deadline) {
      refusals.push(head.status);
      await sleep(250);
      head = await headOffset(on('B', session.url));
    }
    expect(head.status).toBe(200);
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals).toEqual(refusals.map(() => 423));
    // The acknowledged third, kept as the upload's incomplete part: the kill lands after upstream
    // @tus/s3-store would have deleted that part, which DurableS3Store keeps until the bytes
    // are stored again (docs/video.md).
    expect(head.offset).toBe(third);
    const rest = await fetch(on('B', session.url), {
      method: 'PATCH',
      headers: { ...OCTET, 'Upload-Offset': String(head.offset) },
      body: clip.subarray(head.offset),
    });
    expect(rest.status).toBe(204);
    expect(await waitFor([session.submissionId], 'needs_review')).toEqual(['needs_review']);
    expect(await storedOriginal(session.submissionId)).toEqual({
      sha256: sha256(clip),
      byte_size: String(clip.length),
    });
  });
});
