import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { intakeStats } from '@framedesk/queues';
import {
  freePort,
  makePng,
  occupyPort,
  type RunningProcess,
  startApp,
  waitForHttp,
  writeTestConfig,
} from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerHarness, type WorkerHarness } from './harness';

// Enough work that a worker is reliably caught in the middle of it.
const HEAVY_VARIANTS = ['public', 'preview', 'thumbnail', 'w2800', 'h2600', '2400x1800', 'w2200', 'h2000'];

describe('nothing lost: real worker processes killed, restarted and shut down', () => {
  let h: WorkerHarness;
  let dir: string;
  let env: Record<string, string>;
  const processes: RunningProcess[] = [];

  const startWorker = async () => {
    const port = await freePort();
    const worker = startApp('worker', { ...env, WORKER_HEALTH_PORT: String(port) });
    processes.push(worker);
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, worker);
    return { worker, port };
  };

  const waitWhile = async (id: string, status: string) => {
    for (;;) {
      const row = await h.db.repos.submissions.findById(id);
      if (row?.status !== status) return row?.status;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const transitions = async (id: string) =>
    (await h.db.repos.submissions.events(id))
      .filter((e) => e.type === 'transition')
      .map((e) => `${e.fromStatus}->${e.toStatus}`);

  beforeAll(async () => {
    h = await createWorkerHarness();
    dir = await mkdtemp(join(tmpdir(), 'fd-worker-crash-'));
    const configFile = await writeTestConfig(dir, 'http://127.0.0.1:3000', (config) => {
      config.delivery.vendor_image_variants = HEAVY_VARIANTS;
    });
    env = {
      ...h.env,
      FRAMEDESK_CONFIG: configFile,
      LOG_LEVEL: 'info',
      WORKER_LOCK_SECONDS: '2',
      RECONCILE_AFTER_SECONDS: '1',
      RECONCILE_INTERVAL_SECONDS: '1',
    };
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await h?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'a worker killed with SIGKILL mid-job, and a submission whose enqueue was lost, both end in needs_review after restart',
    { timeout: 180_000 },
    async () => {
      const first = await startWorker();
      const killedId = await h.seedImage(makePng(3000, 3000));
      await h.producer.enqueue('image.process', { submissionId: killedId });
      await waitWhile(killedId, 'received');
      await first.worker.stop('SIGKILL');
      expect((await h.db.repos.submissions.findById(killedId))?.status).toBe('media_processing');

      // Committed while no worker runs and never enqueued: only the reconciler can find it.
      const lostId = await h.seedImage(makePng(320, 240, { seed: 5 }));

      const second = await startWorker();
      await h.waitForStatus(killedId, ['needs_review', 'failed'], 120_000);
      await h.waitForStatus(lostId, ['needs_review', 'failed'], 60_000);
      for (const id of [killedId, lostId]) {
        expect((await h.db.repos.submissions.findById(id))?.status).toBe('needs_review');
        expect(await transitions(id)).toEqual([
          'null->received',
          'received->media_processing',
          'media_processing->needs_review',
        ]);
      }
      const variants = (await h.db.repos.mediaObjects.listForSubmission(killedId)).filter((o) => o.kind === 'variant');
      // `public` waits for a promotion (public-variant.int.spec.ts).
      expect(variants.map((v) => v.name).sort()).toEqual(HEAVY_VARIANTS.filter((v) => v !== 'public').sort());

      // Every log line about a job names its submission.
      const jobLines = second.worker
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line['job'] === 'image.process');
      expect(jobLines.length).toBeGreaterThan(0);
      for (const line of jobLines) expect(line['submission_id']).toMatch(/^sub_/);

      const metrics = await (await fetch(`http://127.0.0.1:${second.port}/metrics`)).text();
      expect(metrics).toMatch(
        /framedesk_jobs_total\{[^}]*queue="image-processing"[^}]*outcome="completed"[^}]*\} [1-9]/,
      );
      expect(metrics).toMatch(/framedesk_queue_depth\{[^}]*queue="image-processing"/);
      expect(metrics).toMatch(/framedesk_submissions\{[^}]*status="needs_review"[^}]*\} [1-9]/);
      expect(metrics).toMatch(/framedesk_job_duration_seconds_bucket/);
      await second.worker.stop('SIGKILL');
    },
  );

  it(
    'a new image from the intake whose worker is killed mid-run is taken over by the next worker and finishes',
    { timeout: 120_000 },
    async () => {
      const first = await startWorker();
      const id = await h.seedImage(makePng(3000, 3000, { seed: 11 }));
      await h.producer.submitImage(id, { backlog: 1 });
      await waitWhile(id, 'received');
      await first.worker.stop('SIGKILL');
      expect(await intakeStats(h.redis, h.settings.REDIS_PREFIX)).toMatchObject({ running: 1 });

      const second = await startWorker();
      await h.waitForStatus(id, ['needs_review', 'failed'], 90_000);
      expect(await transitions(id)).toEqual([
        'null->received',
        'received->media_processing',
        'media_processing->needs_review',
      ]);
      // Taken from the dead consumer once its lock lapsed, and run from the image queue.
      expect(second.worker.output()).toContain('image stalled; handed to the image queue');
      expect(await intakeStats(h.redis, h.settings.REDIS_PREFIX)).toMatchObject({ waiting: 0, running: 0 });
      await second.worker.stop('SIGKILL');
    },
  );

  it('SIGTERM lets the running job finish, then the worker exits cleanly', { timeout: 120_000 }, async () => {
    const { worker } = await startWorker();
    const id = await h.seedImage(makePng(3000, 3000, { seed: 9 }));
    await h.producer.enqueue('image.process', { submissionId: id });
    await waitWhile(id, 'received');
    const code = await worker.stop('SIGTERM');
    expect(code).toBe(0);
    expect((await h.db.repos.submissions.findById(id))?.status).toBe('needs_review');
  });

  it('refuses to start on an unknown queue name, printing the violation', { timeout: 60_000 }, async () => {
    const worker = startApp('worker', {
      ...env,
      WORKER_QUEUES: 'image-processing,nonsense',
      WORKER_HEALTH_PORT: String(await freePort()),
    });
    processes.push(worker);
    const code = await new Promise<number | null>((r) => worker.child.once('exit', r));
    expect(code).toBe(1);
    expect(worker.output()).toMatch(/WORKER_QUEUES: unknown queue nonsense/);
  });

  it(
    'refuses to start naming WORKER_HEALTH_PORT when another process holds it (two workers on one machine)',
    {
      timeout: 60_000,
    },
    async () => {
      const { port, release } = await occupyPort();
      try {
        const worker = startApp('worker', { ...env, API_HOST: '127.0.0.1', WORKER_HEALTH_PORT: String(port) });
        processes.push(worker);
        const code = await new Promise<number | null>((r) => worker.child.once('exit', r));
        expect(code).toBe(1);
        expect(worker.output()).toContain(
          `worker: refusing to start.\nWORKER_HEALTH_PORT=${port}: 127.0.0.1:${port} is already in use (another Framedesk process, or another program). Stop it, or set WORKER_HEALTH_PORT to a free port.`,
        );
        expect(worker.output()).not.toMatch(/Unhandled 'error' event|\n\s+at /);
      } finally {
        await release();
      }
    },
  );
});
