import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, makeClip, reviewerCookie, runApp, type Stack, startStack } from '@framedesk/testing';
import { createQueueProducer, createRedis, jobIdFor } from '@framedesk/queues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Five of the worker's readiness checks (every 2 s): a worker that would take video jobs has taken
 * this one by then. The test then asserts it was never started, not only that it has not failed
 * yet (its retries alone would last ≈ 30 s: 5 attempts, 2 s exponential back-off).
 */
const HELD_FOR_MS = 10_000;

/**
 * A machine without ffprobe, as a new user has it: the worker says so on /readyz and does not
 * take video jobs; a video uploaded meanwhile waits in media_processing instead of failing, and
 * goes through once ffprobe is there — without restarting the worker.
 */
describe('first run without ffprobe (api + worker processes)', () => {
  let stack: Stack;
  let dir: string;
  let ffprobe: string;
  let readyz: string;
  let key: string;
  let submissionId: string;
  let uploadedAt: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fd-first-run-'));
    ffprobe = join(dir, 'ffprobe'); // created later: the same worker must pick it up
    stack = await startStack({ workers: 0 });
    const port = await freePort();
    readyz = `http://127.0.0.1:${port}/readyz`;
    await stack.startWorker({
      WORKER_HEALTH_PORT: String(port),
      FFPROBE_PATH: ffprobe,
      WORKER_READINESS_INTERVAL_SECONDS: '2',
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${stack.apiUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, ...init.headers } });
  const statusOf = async (id: string) =>
    ((await (await api(`/v1/frame-submissions/${id}`)).json()) as { status: string }).status;

  it('the worker answers /readyz 503 naming ffprobe for the video queue, 200-ready for the others', async () => {
    const response = await fetch(readyz);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { queues: Record<string, { status: string; reason?: string }> };
    expect(body.queues['video-processing']).toEqual({
      status: 'unavailable',
      reason: expect.stringContaining(`ffprobe not found at ${ffprobe}`),
    });
    expect(body.queues['image-processing']).toEqual({ status: 'consuming' });
    const health = await fetch(readyz.replace('/readyz', '/healthz'));
    expect(health.status).toBe(200); // liveness only
  });

  it('a video uploaded meanwhile is received and waits in media_processing', async () => {
    const clip = makeClip(dir, 'clip.mp4', 1, '160x120');
    const bytes = await readFile(clip);
    const created = await api('/v1/media-uploads', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({
        agent_slug: 'bot',
        channel_slug: 'news',
        media_type: 'video',
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: bytes.length,
      }),
    });
    expect(created.status).toBe(201);
    const upload = (await created.json()) as { upload_url: string; submission_id: string };
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'video/mp4' }), 'clip.mp4');
    expect((await fetch(upload.upload_url, { method: 'POST', body: form })).status).toBe(201);
    submissionId = upload.submission_id;
    uploadedAt = Date.now();
    expect(await statusOf(submissionId)).toBe('media_processing');
  });

  it('the ops page says the video waits for a capable worker, and why', async () => {
    const email = 'ops@example.com';
    const password = 'a long password for ops';
    expect((await stack.cli(['reviewer', 'create', email, '--password-stdin', '--role', 'admin'], password)).code).toBe(
      0,
    );
    const cookie = await reviewerCookie(stack.apiUrl, email, password);
    const response = await fetch(`${stack.apiUrl}/review/ops/workers`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      queues: Record<string, { workers: number; waiting: number }>;
      banners: string[];
    };
    expect(body.queues['video-processing']).toMatchObject({ workers: 0, waiting: 1 });
    expect(body.queues['image-processing']!.workers).toBeGreaterThanOrEqual(1);
    expect(body.banners).toEqual([
      expect.stringMatching(
        new RegExp(`^1 video waiting — no worker can process video: ffprobe not found at ${ffprobe}`),
      ),
    ]);
  });

  it('`framedesk doctor` passes on this running stack (the video queue only warns: its worker lacks ffprobe)', async () => {
    const result = await stack.cli(['doctor']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✓ postgresql: PostgreSQL \d+/m);
    expect(result.stdout).toMatch(/^✓ ffprobe: ffprobe version /m);
    expect(result.stdout).toMatch(/^✓ workers image-processing: \d+ workers? consuming$/m);
    expect(result.stdout).toContain(`! workers video-processing: no worker consuming: ffprobe not found at ${ffprobe}`);
  });

  it('`framedesk doctor` exits 1 naming ffprobe when FFPROBE_PATH points nowhere', async () => {
    const nowhere = join(dir, 'nowhere', 'ffprobe');
    const result = await runApp('cli', ['doctor', '--json'], { ...stack.env, FFPROBE_PATH: nowhere });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: { name: string; status: string; message: string; fix?: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([
      {
        name: 'ffprobe',
        status: 'fail',
        message: expect.stringContaining(`ffprobe not found at ${nowhere}`),
        fix: expect.stringContaining('FFPROBE_PATH'),
      },
    ]);
  });

  it(
    `is still media_processing after ${HELD_FOR_MS / 1000} s, and reaches needs_review once ffprobe is there`,
    async () => {
      const wait = uploadedAt + HELD_FOR_MS - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      expect(await statusOf(submissionId)).toBe('media_processing');
      const redis = createRedis(stack.env['REDIS_URL']!, 'producer');
      const queues = createQueueProducer(redis, stack.env['REDIS_PREFIX']!);
      try {
        const job = await queues.queue('video-processing').getJob(jobIdFor('video.process', { submissionId }));
        expect(job?.attemptsStarted).toBe(0);
      } finally {
        await queues.close();
        redis.disconnect();
      }

      await symlink(execFileSync('sh', ['-c', 'command -v ffprobe']).toString().trim(), ffprobe);
      const deadline = Date.now() + 60_000;
      let status = await statusOf(submissionId);
      while (status === 'media_processing' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        status = await statusOf(submissionId);
      }
      expect(status).toBe('needs_review');
      expect((await fetch(readyz)).status).toBe(200);
    },
    HELD_FOR_MS + 70_000,
  );
});
