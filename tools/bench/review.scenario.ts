import pg from 'pg';
import { ALL_CHANNELS, createDatabase } from '@framedesk/db';
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks make their databases as the integration tests do.
import { createTestDatabase } from '@framedesk/testing';
import { type BenchOptions } from './options';
import { type ScenarioResult, atMost, row } from './report';
import { bigChannelRows, generatedSubmission, loadReviewData } from './review-data';
import { processCpuMs } from './cpu';
import { percentile } from './stats';

const QUERIES = ['queue', 'timeline', 'queueBig', 'timelineBig', 'get'] as const;
type Query = (typeof QUERIES)[number];
const TARGET_P99_MS: Record<Query, number> = { queue: 10, timeline: 10, queueBig: 10, timelineBig: 10, get: 3 };
const LABEL: Record<Query, string> = {
  queue: 'review queue page (50, channel filter)',
  timeline: 'channel timeline page (50)',
  queueBig: 'review queue page (50), 10× channel',
  timelineBig: 'channel timeline page (50), 10× channel',
  get: 'GET /v1/frame-submissions/{id} lookup',
};
/** The 10× channel's page against a regular channel's: unchanged within ±20%. */
const GROWTH: readonly (readonly [Query, Query])[] = [
  ['queueBig', 'queue'],
  ['timelineBig', 'timeline'],
];

const shorten = (line: string) => (line.length > 220 ? `${line.slice(0, 220)}…` : line);

interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** Records the SQL Prisma sends through `pg` while `work` runs (the adapter uses this very module). */
export async function captureSql(work: () => Promise<unknown>): Promise<Statement[]> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const captured: Statement[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    if (typeof first === 'string') captured.push({ text: first, values: Array.isArray(args[1]) ? args[1] : [] });
    else if (first?.text) captured.push({ text: first.text, values: first.values ?? [] });
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return captured;
}

/**
 * The reviewer's and the agent's reads on a large table: 500,000 submissions over 50 channels,
 * bulk-loaded into a database of their own, timed in-process around the repository calls the
 * routes delegate to (Prisma + driver + PostgreSQL; no HTTP, no auth), then profiled: the exact
 * SQL Prisma sends is captured and run under EXPLAIN ANALYZE.
 */
export async function reviewScenario(options: BenchOptions['review']): Promise<ScenarioResult> {
  const database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const db = createDatabase({ url: database.url, poolSize: 4 });
  try {
    const loadStarted = performance.now();
    const loadTimings = await loadReviewData(admin, options);
    const loadMs = performance.now() - loadStarted;

    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const channel = () => `channel-${1 + rand(options.channels)}`;
    const calls: Record<Query, () => Promise<unknown>> = {
      queue: () => db.repos.review.queue({ scope: ALL_CHANNELS, channelSlug: channel(), limit: 50 }),
      timeline: () => db.repos.review.timeline({ channelSlug: channel(), limit: 50 }),
      queueBig: () => db.repos.review.queue({ scope: ALL_CHANNELS, channelSlug: 'channel-big', limit: 50 }),
      timelineBig: () => db.repos.review.timeline({ channelSlug: 'channel-big', limit: 50 }),
      get: () => {
        const { id, agentId } = generatedSubmission(1 + rand(options.submissions), options.agents);
        return db.repos.submissions.findResourceForAgent(id, agentId);
      },
    };
    // Sanity: the queries return what a page should, else the timings mean nothing.
    const sizes = {
      queue: ((await calls.queue()) as unknown[]).length,
      timeline: ((await calls.timeline()) as unknown[]).length,
      queueBig: ((await calls.queueBig()) as unknown[]).length,
      timelineBig: ((await calls.timelineBig()) as unknown[]).length,
      get: (await calls.get()) ? 1 : 0,
    };
    for (let i = 0; i < 50; i++) for (const q of QUERIES) await calls[q]();

    // CPU per call, ours (Prisma + driver) and PostgreSQL's, does not depend on how busy the
    // shared machine is; wall-clock percentiles do.
    const backends = async () => {
      const { rows } = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return Promise.all(rows.map(async (r) => ({ pid: r.pid, ms: (await processCpuMs(r.pid)) ?? 0 })));
    };
    const reps: Record<Query, { p50: number; p99: number; clientCpuMs: number; databaseCpuMs: number }[]> = {
      queue: [],
      timeline: [],
      queueBig: [],
      timelineBig: [],
      get: [],
    };
    for (let rep = 0; rep < options.reps; rep++) {
      for (const q of QUERIES) {
        const samples: number[] = [];
        const cpuBefore = process.cpuUsage();
        const dbBefore = new Map((await backends()).map((b) => [b.pid, b.ms]));
        for (let i = 0; i < options.iterations; i++) {
          const started = performance.now();
          await calls[q]();
          samples.push(performance.now() - started);
        }
        const cpu = process.cpuUsage(cpuBefore);
        const databaseMs = (await backends()).reduce((n, b) => n + b.ms - (dbBefore.get(b.pid) ?? 0), 0);
        reps[q].push({
          p50: percentile(samples, 50),
          p99: percentile(samples, 99),
          clientCpuMs: (cpu.user + cpu.system) / 1000 / options.iterations,
          databaseCpuMs: databaseMs / options.iterations,
        });
      }
    }

    // Profile: the statements behind one call of each, under EXPLAIN ANALYZE.
    const profiles: Record<Query, { statements: number; executionMs: number; plans: string[] }> = {
      queue: { statements: 0, executionMs: 0, plans: [] },
      timeline: { statements: 0, executionMs: 0, plans: [] },
      queueBig: { statements: 0, executionMs: 0, plans: [] },
      timelineBig: { statements: 0, executionMs: 0, plans: [] },
      get: { statements: 0, executionMs: 0, plans: [] },
    };
    for (const q of QUERIES) {
      const statements = await captureSql(calls[q]);
      profiles[q].statements = statements.length;
      for (const s of statements) {
        const { rows } = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, [
          ...s.values,
        ]);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        profiles[q].executionMs +=
          Number(/Planning Time: ([\d.]+) ms/.exec(plan)?.[1] ?? 0) +
          Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? 0);
        profiles[q].plans.push(
          `${shorten(s.text.replace(/^SELECT .*? FROM/, 'SELECT … FROM'))}\n${plan.split('\n').map(shorten).join('\n')}`,
        );
      }
    }

    const rows = QUERIES.flatMap((q) => [
      row(
        'Review queries',
        `${LABEL[q]} p50`,
        'ms',
        reps[q].map((r) => r.p50),
      ),
      row(
        'Review queries',
        `${LABEL[q]} p99`,
        'ms',
        reps[q].map((r) => r.p99),
        atMost(TARGET_P99_MS[q], ' ms'),
      ),
      row(
        'Review queries',
        `${LABEL[q]}: CPU per call, Prisma + driver`,
        'ms',
        reps[q].map((r) => r.clientCpuMs),
      ),
      row(
        'Review queries',
        `${LABEL[q]}: CPU per call, PostgreSQL backend`,
        'ms',
        reps[q].map((r) => r.databaseCpuMs),
      ),
    ]);
    for (const [big, regular] of GROWTH) {
      rows.push(
        row(
          'Review queries',
          `${LABEL[big]} p99 / regular channel p99`,
          '×',
          reps[big].map((r, i) => r.p99 / reps[regular][i]!.p99),
          atMost(1.2),
        ),
      );
    }
    const missed = rows.filter((r) => r.target && !r.target.met).map((r) => r.metric);
    const evidence = QUERIES.filter((q) => missed.some((m) => m.startsWith(LABEL[q]))).map(
      (q) => `${LABEL[q]}: ${profiles[q].statements} statements\n\n${profiles[q].plans.join('\n\n')}`,
    );
    return {
      name: 'Review queries',
      rows,
      details: { loadMs, loadTimings, sizes, reps, profiles },
      notes: [
        `${options.submissions.toLocaleString('en')} submissions${options.submissions < 500_000 ? ' (--quick: the full run loads 500,000)' : ''}, ${options.channels} channels, ${options.agents} agents, with original + 3 variant media rows each once processed; bulk-loaded with INSERT … SELECT generate_series in ${(loadMs / 1000).toFixed(1)} s (${Object.entries(
          loadTimings,
        )
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
          .join(', ')}).`,
        `Server-side here means in-process around the repository call the route delegates to (libs/db review.queue, review.timeline, submissions.findResourceForAgent): Prisma, the pg driver and PostgreSQL, ${options.iterations} calls each per repetition, a random channel or id each time; HTTP, auth and JSON rendering are not included.`,
        `The 10× channel (channel-big) holds ${bigChannelRows(options).toLocaleString('en')} submissions, ${options.bigChannelFactor} times each regular channel's ${Math.round(options.submissions / options.channels).toLocaleString('en')}, with the same status mix.`,
        `Pages returned: ${QUERIES.map((q) => `${q} ${q === 'get' ? (sizes.get ? 'found' : 'NOT FOUND') : sizes[q]}`).join(', ')}.`,
        ...QUERIES.map(
          (q) =>
            `Profile of one ${LABEL[q]}: ${profiles[q].statements} SQL statements, PostgreSQL planning + execution ${profiles[q].executionMs.toFixed(2)} ms in total (EXPLAIN ANALYZE); the rest of the call is Prisma and the driver.`,
        ),
      ],
      evidence,
    };
  } finally {
    await db.close();
    await admin.end();
    await database.drop();
  }
}
