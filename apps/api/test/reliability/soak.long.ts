// `npm run test:soak`: SOAK_SECONDS (default 600) of steady traffic with workers running. The
// API's and workers' memory and open handles, PostgreSQL connections and Redis keys must not
// grow beyond noise and the retention windows (first third of the run vs the last third).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRedisKeys, makePng } from '@framedesk/testing';
import { classify } from './burst';
import { call, type RelStack, reportFigures, sleep, startRelStack, submitFrame, waitForSettled } from './harness';
import { openFds, rssMiB } from './raw-http';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 600);
const RATE = Number(process.env['SOAK_RPS'] ?? 2);
const SAMPLE_SECONDS = Math.max(1, Math.min(10, Math.floor(SECONDS / 12)));
/** A loose bound: completed jobs are removed at once (libs/queues removeOnComplete); 1000 a queue for what else a job leaves. */
const REDIS_KEY_BOUND = 4 * 1000 + 200;

interface Sample {
  readonly t: number;
  readonly apiRss: number;
  readonly apiFds: number;
  /** Summed over the workers. */
  readonly workerRss: number;
  /** The largest single worker's. */
  readonly largestWorkerRss: number;
  readonly workerFds: number;
  readonly pgConnections: number;
  readonly redisKeys: number;
}

const max = (xs: number[]) => Math.max(...xs);

describe(`soak: ${SECONDS} s at ${RATE} submissions/s`, () => {
  let stack: RelStack;
  let key: string;

  beforeAll(async () => {
    stack = await startRelStack({ workers: 2, env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000' } });
    key = await stack.createAgent('soak', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it(
    'holds memory, handles, connections and Redis keys flat, and loses nothing',
    async () => {
      const samples: Sample[] = [];
      const sample = async (t: number) => {
        const [conn] = await stack.query<{ n: string }>(
          'SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database()',
        );
        const workers = stack.workers.map((w) => w.child.pid!);
        samples.push({
          t,
          apiRss: rssMiB(stack.api().child.pid!),
          apiFds: openFds(stack.api().child.pid!),
          workerRss: workers.reduce((s, pid) => s + rssMiB(pid), 0),
          largestWorkerRss: max(workers.map(rssMiB)),
          workerFds: workers.reduce((s, pid) => s + openFds(pid), 0),
          pgConnections: Number(conn?.n ?? 0),
          redisKeys: await countRedisKeys(stack.env['REDIS_URL']!, stack.env['REDIS_PREFIX']!),
        });
      };

      const pngs = Array.from({ length: 8 }, (_, i) => makePng(320, 240, { seed: i }));
      const pending: Promise<void>[] = [];
      const accepted: string[] = [];
      const answers: Record<string, number> = {};
      const count = (label: string) => (answers[label] = (answers[label] ?? 0) + 1);
      const started = Date.now();
      let sent = 0;
      let nextSample = 0;
      while (Date.now() - started < SECONDS * 1000) {
        const elapsed = (Date.now() - started) / 1000;
        if (elapsed >= nextSample) {
          await sample(Math.round(elapsed));
          nextSample += SAMPLE_SECONDS;
        }
        const n = sent;
        const idempotencyKey = randomUUID();
        const input = { agent: 'soak', channel: 'news', png: pngs[n % pngs.length]!, idempotencyKey };
        pending.push(
          submitFrame(stack.apiUrl, key, input).then(async (answer) => {
            count(`${answer.status}`);
            if (classify(answer) === 'accepted') accepted.push(String(answer.body?.['id']));
            // Agents poll, list and sometimes retry: exercise those paths too.
            if (n % 5 === 0 && answer.body?.['id'])
              count(
                `get ${(await call(`${stack.apiUrl}/v1/frame-submissions/${String(answer.body['id'])}`, { headers: { authorization: `Bearer ${key}` } })).status}`,
              );
            if (n % 20 === 0) count(`replay ${(await submitFrame(stack.apiUrl, key, input)).status}`);
            if (n % 10 === 0)
              count(
                `list ${(await call(`${stack.apiUrl}/v1/frame-submissions?limit=20`, { headers: { authorization: `Bearer ${key}` } })).status}`,
              );
          }),
        );
        sent++;
        await sleep(Math.max(0, started + (sent * 1000) / RATE - Date.now()));
      }
      await Promise.all(pending);
      await sample(Math.round((Date.now() - started) / 1000));

      const statuses = await waitForSettled(stack, accepted, 120_000);
      const settled = accepted.filter((id) => statuses.get(id) === 'needs_review');
      const third = Math.max(1, Math.floor(samples.length / 3));
      const first = samples.slice(0, third);
      const last = samples.slice(-third);
      const figures = {
        seconds: SECONDS,
        rate_per_second: RATE,
        requests: sent,
        answers,
        accepted: accepted.length,
        reached_final: settled.length,
        lost: accepted.length - settled.length,
        samples: samples.length,
        api_rss_mib: [Math.round(max(first.map((s) => s.apiRss))), Math.round(max(last.map((s) => s.apiRss)))],
        worker_rss_mib: [Math.round(max(first.map((s) => s.workerRss))), Math.round(max(last.map((s) => s.workerRss)))],
        // One worker's peak over the whole run (docs/performance.md: ≤ 300 MB per worker).
        largest_worker_rss_peak_mib: Math.round(max(samples.map((s) => s.largestWorkerRss))),
        api_fds: [max(first.map((s) => s.apiFds)), max(last.map((s) => s.apiFds))],
        worker_fds: [max(first.map((s) => s.workerFds)), max(last.map((s) => s.workerFds))],
        pg_connections: [max(first.map((s) => s.pgConnections)), max(last.map((s) => s.pgConnections))],
        redis_keys: [max(first.map((s) => s.redisKeys)), max(last.map((s) => s.redisKeys))],
      };
      reportFigures('soak', figures);
      console.log(JSON.stringify(samples));

      expect(figures.lost).toBe(0);
      expect(answers['202']).toBe(sent);
      // First third vs last third: noise, caches warming up, never a trend.
      expect(figures.api_rss_mib[1]!).toBeLessThanOrEqual(figures.api_rss_mib[0]! * 1.3 + 48);
      expect(figures.worker_rss_mib[1]!).toBeLessThanOrEqual(figures.worker_rss_mib[0]! * 1.5 + 96);
      expect(figures.api_fds[1]!).toBeLessThanOrEqual(figures.api_fds[0]! + 16);
      expect(figures.worker_fds[1]!).toBeLessThanOrEqual(figures.worker_fds[0]! + 24);
      expect(figures.pg_connections[1]!).toBeLessThanOrEqual(figures.pg_connections[0]! + 4);
      // Each process's pool (10) plus this test's 2: connections are reused, never leaked.
      expect(figures.pg_connections[1]!).toBeLessThanOrEqual(3 * 10 + 2);
      expect(figures.redis_keys[1]!).toBeLessThanOrEqual(REDIS_KEY_BOUND);
    },
    (SECONDS + 300) * 1000,
  );
});
