import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { type Agent } from 'node:http';
import { join } from 'node:path';
import { measureCpu, processCpuMs } from './cpu';
import { type BenchStack, databaseBackendPids, exampleConfig, submitFrame, today } from './framedesk';
import { closedLoop, type HttpResult, keepAliveAgent, type LoadResult, multipartBody, post } from './http-load';
import { noisyPng, uniquePngParts } from './images';
import { type BenchOptions } from './options';
import { type ScenarioResult, atLeast, atMost, row } from './report';
import { sleep } from './stats';
import { startBaselineServer } from './processes';
import { profileApi } from './profile';
import { type S3PerUnit, s3PerUnit } from './s3-meter';

type System = 'framedesk' | 'bare' | 'naive';

interface Run extends LoadResult {
  /** CPU ms the server process used per accepted request. */
  readonly serverCpuMsPerAccepted: number;
  /** Cores the server process kept busy on average. */
  readonly serverCores: number;
  readonly harnessCores: number;
  /** Share of the whole machine's CPU that was busy (everyone's processes). */
  readonly machineBusyShare: number;
  /** Framedesk only: CPU ms its PostgreSQL backends used, transactions and row writes, per accepted request. */
  readonly databaseCpuMsPerAccepted: number;
  readonly databaseXactsPerAccepted: number;
  readonly databaseWritesPerAccepted: number;
  /** Framedesk on --storage=s3: what the API asked of the S3 server, per accepted request. */
  readonly s3?: S3PerUnit;
}

const DB_COUNTERS =
  'SELECT xact_commit + xact_rollback AS xacts, tup_inserted + tup_updated + tup_deleted AS writes FROM pg_stat_database WHERE datname = current_database()';

/**
 * CPU the stack's PostgreSQL backends use while `work` runs (backends that appear meanwhile count
 * whole), and the transactions and row writes it caused (every autocommit statement counts one).
 */
async function databaseCpu<T>(
  s: BenchStack,
  work: () => Promise<T>,
): Promise<{ result: T; cpuMs: number; xacts: number; writes: number }> {
  const before = new Map<number, number>();
  for (const pid of await databaseBackendPids(s)) before.set(pid, (await processCpuMs(pid)) ?? 0);
  await sleep(1_100); // backends flush their statistics at most once a second
  const counters = async () => (await s.db.query<{ xacts: string; writes: string }>(DB_COUNTERS)).rows[0]!;
  const c0 = await counters();
  const result = await work();
  let cpuMs = 0;
  for (const pid of await databaseBackendPids(s)) cpuMs += ((await processCpuMs(pid)) ?? 0) - (before.get(pid) ?? 0);
  await sleep(1_100);
  const c1 = await counters();
  // Our own counter query is one transaction.
  return {
    result,
    cpuMs,
    xacts: Number(c1.xacts) - Number(c0.xacts) - 1,
    writes: Number(c1.writes) - Number(c0.writes),
  };
}

/**
 * Agents POSTing 1280×720 PNGs at a fixed concurrency for a fixed time, against Framedesk's API
 * (no worker running: ingest alone), a bare node:http floor, and the naive Express+multer+sharp
 * design. The three run back to back within each repetition so ratios compare like with like.
 */
export async function ingestScenario(s: BenchStack, options: BenchOptions['ingest']): Promise<ScenarioResult> {
  const images = Array.from({ length: options.images }, (_, i) => noisyPng(1280, 720, { seed: i + 1, noiseBits: 1 }));
  const meanBytes = images.reduce((n, i) => n + i.length, 0) / images.length;
  const bareDir = join(tmpdir(), `framedesk-bench-bare-${randomUUID()}`);
  const naiveDir = join(tmpdir(), `framedesk-bench-naive-${randomUUID()}`);
  const variants = exampleConfig.delivery.vendor_image_variants;
  const bare = await startBaselineServer('baselines/bare-http.server.ts', [bareDir]);
  const naive = await startBaselineServer('baselines/naive-express.server.ts', [naiveDir, variants.join(',')]);
  try {
    const metadata = { agent_slug: s.agent, channel_slug: s.channel, date: today(), title: 'bench frame' };
    const send: Record<System, (n: number, rep: string, agent: Agent) => Promise<HttpResult>> = {
      framedesk: (n, rep, agent) => submitFrame(s, uniquePngParts(images[n % images.length]!, `${rep}-${n}`), agent),
      bare: (n, rep, agent) =>
        post(
          `${bare.url}/v1/frame-submissions`,
          multipartBody(metadata, uniquePngParts(images[n % images.length]!, `${rep}-${n}`)),
          {},
          agent,
        ),
      naive: (n, rep, agent) =>
        post(
          `${naive.url}/v1/frame-submissions`,
          multipartBody(metadata, uniquePngParts(images[n % images.length]!, `${rep}-${n}`)),
          {},
          agent,
        ),
    };
    const accepted: Record<System, (r: HttpResult) => boolean> = {
      framedesk: (r) => r.status === 202,
      bare: (r) => r.status === 202,
      naive: (r) => r.status === 201,
    };
    const pid: Record<System, number> = { framedesk: s.stack.api.child.pid!, bare: bare.pid, naive: naive.pid };
    const load = async (
      system: System,
      rep: string,
      durationMs: number,
      concurrency = options.concurrency,
    ): Promise<Run> => {
      const agent = keepAliveAgent(concurrency);
      try {
        const measured = () =>
          measureCpu([pid[system], process.pid], () =>
            closedLoop({
              concurrency,
              durationMs,
              send: (n) => send[system](n, rep, agent),
              accepted: accepted[system],
            }),
          );
        const s3Before = system === 'framedesk' ? await s.s3?.snapshot() : undefined;
        const {
          result: cpu,
          cpuMs: databaseMs,
          xacts,
          writes,
        } = system === 'framedesk'
          ? await databaseCpu(s, measured)
          : { result: await measured(), cpuMs: 0, xacts: 0, writes: 0 };
        const s3After = s3Before ? await s.s3?.snapshot() : undefined;
        const [server = Number.NaN, harness = Number.NaN] = cpu.processMs;
        return {
          ...cpu.result,
          serverCpuMsPerAccepted: server / cpu.result.accepted,
          serverCores: server / cpu.wallMs,
          harnessCores: harness / cpu.wallMs,
          machineBusyShare: cpu.machineBusyShare,
          databaseCpuMsPerAccepted: databaseMs / cpu.result.accepted,
          databaseXactsPerAccepted: xacts / cpu.result.requests,
          databaseWritesPerAccepted: writes / cpu.result.accepted,
          ...(s3Before && s3After ? { s3: s3PerUnit(s3Before, s3After, cpu.result.accepted) } : {}),
        };
      } finally {
        agent.destroy();
      }
    };
    // Warm-up: connections, JIT, the database pool, sharp's first load.
    for (const system of ['framedesk', 'bare', 'naive'] as const) await load(system, 'warm', options.warmupMs, 4);

    const runs: Record<System, Run[]> = { framedesk: [], bare: [], naive: [] };
    for (let rep = 0; rep < options.reps; rep++) {
      for (const system of ['framedesk', 'bare', 'naive'] as const)
        runs[system].push(await load(system, `r${rep}`, options.durationMs));
    }
    const per = (system: System, pick: (r: Run) => number) => runs[system].map(pick);
    const ratio = (other: System) =>
      runs.framedesk.map((r, i) => r.acceptedPerSecond / runs[other][i]!.acceptedPerSecond);
    const cpuRatio = (other: System) =>
      runs.framedesk.map(
        (r, i) => runs[other][i]!.serverCpuMsPerAccepted / (r.serverCpuMsPerAccepted + r.databaseCpuMsPerAccepted),
      );
    const c = options.concurrency;
    const rows = [
      row(
        'Ingest',
        `Framedesk accepted/s (c=${c})`,
        '/s',
        per('framedesk', (r) => r.acceptedPerSecond),
      ),
      row(
        'Ingest',
        'Framedesk latency p50',
        'ms',
        per('framedesk', (r) => r.p50Ms),
      ),
      row(
        'Ingest',
        'Framedesk latency p99',
        'ms',
        per('framedesk', (r) => r.p99Ms),
      ),
      row(
        'Ingest',
        `(a) bare node:http accepted/s (c=${c})`,
        '/s',
        per('bare', (r) => r.acceptedPerSecond),
      ),
      row(
        'Ingest',
        '(a) bare node:http latency p50',
        'ms',
        per('bare', (r) => r.p50Ms),
      ),
      row(
        'Ingest',
        '(a) bare node:http latency p99',
        'ms',
        per('bare', (r) => r.p99Ms),
      ),
      row(
        'Ingest',
        `(b) Express+multer+sharp accepted/s (c=${c})`,
        '/s',
        per('naive', (r) => r.acceptedPerSecond),
      ),
      row(
        'Ingest',
        '(b) Express+multer+sharp latency p50',
        'ms',
        per('naive', (r) => r.p50Ms),
      ),
      row(
        'Ingest',
        '(b) Express+multer+sharp latency p99',
        'ms',
        per('naive', (r) => r.p99Ms),
      ),
      row(
        'Ingest',
        'Framedesk API CPU per accepted request',
        'ms',
        per('framedesk', (r) => r.serverCpuMsPerAccepted),
      ),
      row(
        'Ingest',
        'Framedesk PostgreSQL backends CPU per accepted request',
        'ms',
        per('framedesk', (r) => r.databaseCpuMsPerAccepted),
      ),
      row(
        'Ingest',
        'Framedesk PostgreSQL transactions per request',
        '',
        per('framedesk', (r) => r.databaseXactsPerAccepted),
      ),
      row(
        'Ingest',
        'Framedesk PostgreSQL row writes per accepted request',
        '',
        per('framedesk', (r) => r.databaseWritesPerAccepted),
      ),
      row(
        'Ingest',
        '(a) bare node:http CPU per accepted request',
        'ms',
        per('bare', (r) => r.serverCpuMsPerAccepted),
      ),
      row(
        'Ingest',
        '(b) Express+multer+sharp CPU per accepted request',
        'ms',
        per('naive', (r) => r.serverCpuMsPerAccepted),
      ),
      // What the throughput ratio would be if every system were bound by its own CPU alone: an
      // estimate that does not move with the shared machine's load (Redis is left out).
      row('Ingest', 'CPU-cost ratio (a) / Framedesk API + PostgreSQL', '×', cpuRatio('bare')),
      row('Ingest', 'CPU-cost ratio (b) / Framedesk API + PostgreSQL', '×', cpuRatio('naive')),
      row(
        'Ingest',
        'Framedesk API CPU / (a) bare node:http CPU, per accepted request',
        '×',
        runs.framedesk.map((r, i) => r.serverCpuMsPerAccepted / runs.bare[i]!.serverCpuMsPerAccepted),
        atMost(2),
      ),
      row('Ingest', 'Framedesk / (a) bare node:http', '×', ratio('bare'), atLeast(0.6)),
      row('Ingest', 'Framedesk / (b) Express+multer+sharp', '×', ratio('naive'), atLeast(8)),
      ...(s.s3
        ? [
            row(
              'Ingest',
              'Framedesk S3 requests per accepted request',
              '',
              per('framedesk', (r) => r.s3?.requests ?? NaN),
            ),
            row(
              'Ingest',
              'Framedesk S3 bytes written per accepted request',
              'B',
              per('framedesk', (r) => r.s3?.putBytes ?? NaN),
            ),
            row(
              'Ingest',
              'Framedesk S3 failed requests per accepted request',
              '',
              per('framedesk', (r) => r.s3?.failed ?? NaN),
            ),
          ]
        : []),
    ];
    // Profile, don't guess: where the API's main thread spends the time under this same load.
    let profile: string[] = [];
    if (options.profile && rows.some((r) => r.target && !r.target.met)) {
      const profileLoad = async (apiUrl: string, durationMs: number) => {
        const agent = keepAliveAgent(options.concurrency);
        await closedLoop({
          concurrency: options.concurrency,
          durationMs,
          send: (n) => submitFrame(s, uniquePngParts(images[n % images.length]!, `prof-${n}`), agent, apiUrl),
          accepted: accepted.framedesk,
        });
        agent.destroy();
      };
      profile = await profileApi(s.stack, profileLoad, Math.min(options.durationMs, 6_000)).catch((error: unknown) => [
        `profiling failed: ${String(error).slice(0, 300)}`,
      ]);
    }
    const refused = (Object.keys(runs) as System[]).flatMap((system) =>
      runs[system]
        .filter((r) => r.firstFailure)
        .map((r) => `${system}: ${r.requests - r.accepted} of ${r.requests} not accepted, first: ${r.firstFailure}`),
    );
    return {
      name: 'Ingest',
      rows,
      details: { meanImageBytes: meanBytes, variants, runs },
      notes: [
        ...(s.s3
          ? [
              `Storage: Framedesk on S3 (Ceph RGW 16 on this machine, a radosgw of the bench's own, STORAGE_DRIVER=s3), counted by radosgw (perf counters, access log by kind): ${runs.framedesk.map((r) => JSON.stringify(r.s3?.byKind)).join(' / ')} per accepted request. The baselines (a) and (b) still write to the local file system: the ratios compare Framedesk on S3 with file-system floors.`,
            ]
          : []),
        `${options.concurrency} concurrent keep-alive clients for ${options.durationMs / 1000} s per system and repetition; 1280×720 RGB PNGs of ${(meanBytes / 1e6).toFixed(2)} MB (noise in the low bit of each channel, so they do not compress away), every request with unique bytes and a unique Idempotency-Key.`,
        'Framedesk: the real API process, no worker running (ingest alone). (a) busboy + temp file + fsync + rename, the same durability as the fs storage driver. (b) multer memory storage, then libs/media processImage for every configured variant inside the request, sharp at its defaults.',
        "The load generator runs in the harness process on the same 2 cores, for all three systems alike. CPU per request is the server process's own user + system time (/proc/<pid>/stat) over accepted requests: unlike requests/s it does not depend on what else the shared machine is doing.",
        `Busy share of the whole machine during the runs (all processes, everyone's): ${(Object.keys(runs) as System[]).map((k) => `${k} ${runs[k].map((r) => `${(r.machineBusyShare * 100).toFixed(0)}%`).join('/')}`).join(', ')}; server cores used: ${(Object.keys(runs) as System[]).map((k) => `${k} ${runs[k].map((r) => r.serverCores.toFixed(2)).join('/')}`).join(', ')}; load generator cores: ${(Object.keys(runs) as System[]).map((k) => `${k} ${runs[k].map((r) => r.harnessCores.toFixed(2)).join('/')}`).join(', ')}.`,
        ...refused.map((r) => `Not accepted: ${r}`),
        ...(profile.length
          ? [
              'A target was missed: the API was profiled (--cpu-prof, a second API process on the same database, same load); summary below.',
            ]
          : []),
      ],
      ...(profile.length ? { evidence: [`Ingest: CPU profile of the API under load\n${profile.join('\n')}`] } : {}),
    };
  } finally {
    await Promise.all([bare.stop(), naive.stop()]);
    await Promise.all([rm(bareDir, { recursive: true, force: true }), rm(naiveDir, { recursive: true, force: true })]);
  }
}
