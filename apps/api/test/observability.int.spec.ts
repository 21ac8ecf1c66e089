// What an operator sees of a real API and worker (docs/operations.md, "Observing Framedesk"),
// all on one stack: traces exported to an OTLP/HTTP receiver (the API in http/json, the worker in
// http/protobuf), log lines that carry the trace, metric labels that stay bounded, and a real
// Prometheus scraping both processes, for which every dashboard expression has data and every
// alert rule evaluates.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_PROCESS_ENV,
  dashboardQueries,
  freePort,
  makePng,
  type OtlpReceiver,
  type PrometheusServer,
  type ReceivedSpan,
  type RunningProcess,
  type Stack,
  startOtlpReceiver,
  startApp,
  startPrometheus,
  startStack,
  waitForHttp,
} from '@framedesk/testing';
import { ReviewerClient } from './review-harness';

const AGENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const AGENT_SPAN = 'b7ad6b7169203331';
/** Written into a frame's metadata: no exported span may contain it. */
const METADATA_MARKER = `caption-${randomUUID()}`;
const PASSWORD = 'a long reviewer password';

let receiver: OtlpReceiver;
let stack: Stack;
let worker: RunningProcess;
let workerPort: number;
let prometheus: PrometheusServer;
let apiKey: string;
let reviewer: ReviewerClient;

interface Submitted {
  readonly id: string;
  readonly requestId: string;
}

async function submit(png: Buffer, headers: Record<string, string> = {}): Promise<Submitted> {
  const form = new FormData();
  const metadata = { agent_slug: 'cam', channel_slug: 'news', date: '20260101', title: 't', caption: METADATA_MARKER };
  form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
  form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'f.png');
  const response = await fetch(`${stack.apiUrl}/v1/frame-submissions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': randomUUID(), ...headers },
    body: form,
  });
  expect(response.status).toBe(202);
  return { id: ((await response.json()) as { id: string }).id, requestId: response.headers.get('x-request-id')! };
}

async function statusOf(id: string): Promise<string> {
  const response = await fetch(`${stack.apiUrl}/v1/frame-submissions/${id}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return ((await response.json()) as { status: string }).status;
}

async function waitForStatus(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await statusOf(id)) !== status) {
    if (Date.now() > deadline) throw new Error(`${id} never reached ${status}:\n${worker.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** True when `span` has `ancestor` among its parents (spans of both services considered). */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, spans: readonly ReceivedSpan[]): boolean {
  let current: ReceivedSpan | undefined = span;
  for (let hops = 0; current && hops < 50; hops++) {
    if (current.parentSpanId === ancestor.spanId) return true;
    const parentId: string = current.parentSpanId;
    current = spans.find((s) => s.spanId === parentId && s.traceId === span.traceId);
  }
  return false;
}

let traced: Submitted;
let corrupt: Submitted;
let waiting: Submitted;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  stack = await startStack({
    workers: 0,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  });
  workerPort = await freePort();
  worker = await stack.startWorker({
    WORKER_HEALTH_PORT: String(workerPort),
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  });
  prometheus = await startPrometheus({
    targets: {
      'framedesk-api': new URL(stack.apiUrl).host,
      'framedesk-worker': `127.0.0.1:${workerPort}`,
    },
    scrapeIntervalSeconds: 1,
  });
  apiKey = await stack.createAgent('cam', ['news']);
  const created = await stack.cli(
    ['reviewer', 'create', 'ana@example.com', '--password-stdin', '--role', 'admin'],
    PASSWORD,
  );
  expect(created.code, created.stderr).toBe(0);
  reviewer = new ReviewerClient(stack.apiUrl);
  expect((await reviewer.login('ana@example.com', PASSWORD)).status).toBe(201);

  // Three frames: one traced from the agent's own trace (then promoted), one corrupt (fails
  // invalid_image), one left waiting for review.
  traced = await submit(makePng(64, 48, { seed: 1 }), { traceparent: `00-${AGENT_TRACE}-${AGENT_SPAN}-01` });
  const good = makePng(64, 48, { seed: 2 });
  corrupt = await submit(Buffer.concat([good.subarray(0, 60), Buffer.alloc(40, 0xab), good.subarray(100)]));
  waiting = await submit(makePng(64, 48, { seed: 3 }));
  await Promise.all([
    waitForStatus(traced.id, 'needs_review'),
    waitForStatus(corrupt.id, 'failed'),
    waitForStatus(waiting.id, 'needs_review'),
  ]);
  const decided = await reviewer.call('POST', `/review/submissions/${traced.id}/decision`, { decision: 'promote' });
  expect(decided.status, await decided.clone().text()).toBe(200);
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await stack?.stop();
  await receiver?.close();
});

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it("makes one trace of a frame, from the agent's traceparent through the API to the worker, in both protocols", async () => {
    const job = await receiver.waitFor(
      (s) => s.name === 'process image.process' && s.attributes['framedesk.submission_id'] === traced.id,
    );
    const root = await receiver.waitFor((s) => s.service === 'framedesk-api' && s.parentSpanId === AGENT_SPAN);
    // The agent's traceparent is the parent of the API's server span, and its trace the frame's.
    expect(root.traceId).toBe(AGENT_TRACE);
    expect(root.attributes['http.request.method']).toBe('POST');
    expect(job.traceId).toBe(AGENT_TRACE);
    expect(job.service).toBe('framedesk-worker');
    expect(descendsFrom(job, root, receiver.spans())).toBe(true);
    expect(root.protocol).toBe('http/json');
    expect(job.protocol).toBe('http/protobuf');
    expect(job.attributes).toMatchObject({
      'framedesk.request_id': traced.requestId,
      'framedesk.media_type': 'image',
      'framedesk.channel': 'news',
      'framedesk.agent': 'cam',
      'framedesk.outcome': 'needs_review',
      'messaging.destination.name': 'image-processing',
    });
    // The request's span names what it created.
    const handler = receiver
      .spans()
      .find(
        (s) =>
          s.traceId === AGENT_TRACE &&
          s.attributes['framedesk.submission_id'] === traced.id &&
          s.service === 'framedesk-api',
      );
    expect(handler?.attributes).toMatchObject({
      'framedesk.channel': 'news',
      'framedesk.agent': 'cam',
      'framedesk.outcome': 'accepted',
    });
    // The worker's children: the original read, sharp's decode and each variant, the writes,
    // PostgreSQL and Redis.
    const children = receiver
      .spans()
      .filter((s) => s.traceId === AGENT_TRACE && descendsFrom(s, job, receiver.spans()));
    const names = new Set(children.map((s) => s.name));
    for (const name of ['storage.read', 'sharp.decode', 'sharp.variant', 'storage.write'])
      expect(names).toContain(name);
    // One encode: thumbnail and preview of a 64×48 frame are one size, encoded once and shared
    // (`public` is made once the frame is promoted).
    expect(children.filter((s) => s.name === 'sharp.variant')).toHaveLength(1);
    expect(children.some((s) => s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    expect(children.some((s) => s.attributes['db.system.name'] === 'redis')).toBe(true);
  });

  it("writes the trace id on the API's and the worker's log lines of the frame, and the request id on the worker's", async () => {
    // The frame's processing; its promotion's job (`image.publish`, the public variant) belongs to
    // the reviewer's decision, its own trace (the next test), not to the agent's request.
    const workerLines = jsonLines(worker.output()).filter(
      (l) => l['submission_id'] === traced.id && l['job'] !== 'image.publish',
    );
    expect(workerLines.length).toBeGreaterThan(0);
    for (const line of workerLines) {
      expect(line).toMatchObject({ trace_id: AGENT_TRACE, request_id: traced.requestId });
      expect(line['span_id']).toMatch(/^[0-9a-f]{16}$/);
    }
    const requestLine = jsonLines(stack.api.output()).find(
      (l) => l['request_id'] === traced.requestId && l['msg'] === 'request',
    );
    expect(requestLine).toMatchObject({ trace_id: AGENT_TRACE });
  });

  it("makes a review decision its own trace, linked to the frame's", async () => {
    const decision = await receiver.waitFor(
      (s) => s.name === 'review.decision' && s.attributes['framedesk.submission_id'] === traced.id,
    );
    expect(decision.traceId).not.toBe(AGENT_TRACE);
    expect(decision.links.map((l) => l.traceId)).toContain(AGENT_TRACE);
    expect(decision.attributes).toMatchObject({ 'framedesk.outcome': 'promoted', 'framedesk.media_type': 'image' });
  });

  it('never exports an API key, a session cookie, a CSRF token or a metadata body', async () => {
    await receiver.waitFor((s) => s.name === 'review.decision');
    const exported = [...new Set(receiver.spans().map((s) => s.rawBody))].join('\n');
    expect(exported).toContain(traced.id); // the check reads what was sent
    expect(exported).not.toContain(apiKey);
    expect(exported).not.toContain(reviewer.cookie.split('=')[1]);
    expect(exported).not.toContain(reviewer.csrf);
    expect(exported).not.toContain(METADATA_MARKER);
  });
});

/**
 * Node options that write down every module a process loads: what ESM resolves (a loader hook)
 * and, at exit, every CommonJS module in require's cache.
 */
async function moduleRecorder(dir: string, log: string): Promise<string> {
  const hook = join(dir, `${basename(log)}.hook.mjs`);
  await writeFile(
    hook,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
  return resolved;
}\n`,
  );
  const register = join(dir, `${basename(log)}.register.mjs`);
  await writeFile(
    register,
    `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(`file://${hook}`)});
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(require.cache).join('\\n')));\n`,
  );
  return `--import=${register}`;
}

describe('tracing off (no endpoint)', () => {
  it('loads no OpenTelemetry SDK, instrumentation or loader hook in the API or the worker', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'framedesk-modules-'));
    const logs = { api: join(dir, 'api.log'), worker: join(dir, 'worker.log') };
    const off = { OTEL_EXPORTER_OTLP_ENDPOINT: '' };
    const [apiPort, workerHealthPort] = [await freePort(), await freePort()];
    const processes = {
      api: startApp('api', {
        ...stack.env,
        ...off,
        API_PORT: String(apiPort),
        NODE_OPTIONS: `${APP_PROCESS_ENV.api.NODE_OPTIONS} ${await moduleRecorder(dir, logs.api)}`,
      }),
      // It serves a queue no frame uses, so it takes no job from the traced worker.
      worker: startApp('worker', {
        ...stack.env,
        ...off,
        WORKER_HEALTH_PORT: String(workerHealthPort),
        WORKER_QUEUES: 'upload-expiry',
        NODE_OPTIONS: await moduleRecorder(dir, logs.worker),
      }),
    };
    try {
      // Both start while other test files load the machine: generous waits.
      await waitForHttp(`http://127.0.0.1:${apiPort}/healthz`, 90_000, processes.api);
      await waitForHttp(`http://127.0.0.1:${workerHealthPort}/healthz`, 90_000, processes.worker);
      // Ready once its first checks of PostgreSQL, Redis and storage are in (after /healthz answers).
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${apiPort}/readyz`)).status, { timeout: 60_000 })
        .toBe(200);
      await Promise.all([processes.api.stop(), processes.worker.stop()]);
      for (const name of ['api', 'worker'] as const) {
        const loaded = await readFile(logs[name], 'utf8').catch(() => {
          throw new Error(`${name} recorded no module:\n${processes[name].output().slice(-3000)}`);
        });
        // The record is complete: the app's own packages are in it…
        for (const used of ['/node_modules/pino/', '/node_modules/ioredis/', '/node_modules/pg/'])
          expect(loaded).toContain(used);
        // …and nothing of tracing is. (The no-op @opentelemetry/api is prom-client's own dependency,
        // loaded by it for exemplars since before tracing existed here: not the SDK.)
        const tracing = loaded.split('\n').filter((line) => /@opentelemetry\/(?!api\/)|-in-the-middle/.test(line));
        expect(tracing, name).toEqual([]);
      }
    } finally {
      await Promise.all([processes.api.stop('SIGKILL'), processes.worker.stop('SIGKILL')]);
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

describe('metrics', () => {
  it('label API requests by route template, never by id', async () => {
    await fetch(`${stack.apiUrl}/v1/frame-submissions/${traced.id}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    await fetch(`${stack.apiUrl}/v1/frame-submissions/sub_${randomUUID().replaceAll('-', '')}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    await fetch(`${stack.apiUrl}/no/such/${randomUUID()}`);
    const metrics = await (await fetch(`${stack.apiUrl}/metrics`)).text();
    const routes = [...metrics.matchAll(/^http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map(
      (m) => m[1],
    );
    expect(routes).toContain('/v1/frame-submissions/:id');
    expect(routes).toContain('unmatched');
    for (const route of routes) expect(route).not.toMatch(/sub_|[0-9a-f]{8}-|\d{4,}/);
  });

  it('give a real Prometheus data for every dashboard expression, and every alert rule evaluates', async () => {
    const queries = await dashboardQueries('1m');
    // Rates need two scrapes after the frames went through: retry until each answers.
    const deadline = Date.now() + 30_000;
    let empty = queries;
    while (empty.length > 0 && Date.now() < deadline) {
      const answers = await Promise.all(
        empty.map(async (q) => ((await prometheus.query(q.expr)).length > 0 ? null : q)),
      );
      empty = answers.filter((q) => q !== null);
      if (empty.length > 0) await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(empty.map((q) => `${q.panel}: ${q.expr}`)).toEqual([]);
    // The values say what happened: one frame failed invalid_image, one waits for review in news.
    const failures = await prometheus.query('sum by (code) (framedesk_submission_failures_total)');
    expect(failures).toEqual([
      expect.objectContaining({ metric: { code: 'invalid_image' }, value: [expect.any(Number), '1'] }),
    ]);
    const backlog = await prometheus.query('max by (channel) (framedesk_review_backlog_oldest_seconds)');
    expect(backlog.map((s) => s.metric['channel'])).toEqual(['news']);
    const ready = await prometheus.query('min by (job) (framedesk_ready)');
    expect(ready.map((s) => [s.metric['job'], s.value[1]]).sort()).toEqual([
      ['framedesk-api', '1'],
      ['framedesk-worker', '1'],
    ]);
    for (const rule of await prometheus.ruleHealth()) expect(rule, rule.name).toMatchObject({ health: 'ok' });
  });
});
