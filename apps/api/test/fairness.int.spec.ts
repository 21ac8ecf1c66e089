// One agent flooding the image queue does not starve another: job priority follows the agent's backlog.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, makePng, type RunningProcess, startApp, testRedisUrl, waitForHttp } from '@framedesk/testing';
import { frameForm, startTestApi, type TestApi } from './harness';

let api: TestApi;
let worker: RunningProcess | undefined;
const keys: Record<string, string> = {};
const png = makePng(16, 16);

const submit = async (agent: string, i: number): Promise<string> => {
  const res = await api.call('POST', '/v1/frame-submissions', {
    key: keys[agent]!,
    headers: { 'idempotency-key': randomUUID() },
    body: frameForm({ agent_slug: agent, channel_slug: 'news', date: '20261122', title: `${agent} ${i}` }, png),
  });
  expect(res.status).toBe(202);
  return res.body.id as string;
};

beforeAll(async () => {
  api = await startTestApi({ env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  keys['flood'] = await api.createAgent('flood', ['news']);
  keys['polite'] = await api.createAgent('polite', ['news']);
});
afterAll(async () => {
  await worker?.stop('SIGKILL');
  await api?.stop();
});

it("agent A's 200 frames do not hold back agent B's 5 sent after them", async () => {
  for (let batch = 0; batch < 20; batch++) {
    await Promise.all(Array.from({ length: 10 }, (_, i) => submit('flood', batch * 10 + i)));
  }
  const polite: string[] = [];
  for (let i = 0; i < 5; i++) polite.push(await submit('polite', i));

  // One worker, one job at a time, started once everything waits: the order is the queue's alone.
  const s = api.deps.settings;
  const port = await freePort();
  worker = startApp('worker', {
    NODE_ENV: 'test',
    DATABASE_URL: s.DATABASE_URL,
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: s.REDIS_PREFIX,
    STORAGE_FS_ROOT: s.STORAGE_FS_ROOT,
    WORKER_HEALTH_PORT: String(port),
    WORKER_CONCURRENCY: '1',
    WORKER_QUEUES: 'image-processing',
    LOG_LEVEL: 'silent',
  });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, worker);

  const statusOf = async (id: string) => (await api.deps.db.repos.submissions.findById(id))?.status;
  const deadline = Date.now() + 90_000;
  while ((await Promise.all(polite.map(statusOf))).some((st) => st !== 'needs_review')) {
    if (Date.now() > deadline) throw new Error("agent B's frames never reached needs_review");
    await new Promise((r) => setTimeout(r, 100));
  }
  await worker.stop('SIGKILL');
  const flooded = await api.deps.db.repos.submissions.countByStatus();
  // Everything that reached needs_review so far: B's 5 and fewer than 100 of A's.
  expect((flooded['needs_review'] ?? 0) - polite.length).toBeLessThan(100);
}, 180_000);
