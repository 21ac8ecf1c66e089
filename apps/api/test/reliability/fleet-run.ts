// One fleet fault run: mixed load through the balancer while faults rotate, then the count of
// what was acknowledged against what the database, storage, Redis and the live stream hold.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeClip, makePng } from '@framedesk/testing';
import { Redis } from 'ioredis';
import { type Fleet, type FleetOptions, REVIEWERS, startFleet } from './fleet';
import {
  type Acked,
  type Decided,
  imageAgent,
  type LiveEvent,
  liveStream,
  type LoadContext,
  mcpAgent,
  poller,
  reviewer,
  Tally,
} from './fleet-load';
import { redisFigures } from './fleet-redis';
import { processingFigures } from './fleet-runs';
import { tusUploader, type Upload } from './fleet-tus';
import { uploadsNotIntact } from './fleet-uploads';
import { quantile, reportFigures, sleep, submitFrame } from './harness';

const root = resolve(import.meta.dirname, '../../../..');
const FINAL_OR_REVIEWABLE = new Set(['needs_review', 'promoted', 'rejected']);

export interface FleetRunOptions {
  readonly seconds: number;
  /** Time from one fault's start to the next (a fault and its recovery probe may take longer). */
  readonly faultEverySeconds: number;
  /** Written to test-results/reliability-figures.jsonl under this name. */
  readonly name: string;
  /** The faults to rotate (default: every one of FAULTS). */
  readonly faults?: Readonly<Record<string, Fault>>;
  /** How the fleet is started (e.g. `storage: 'own-gateway'` for a radosgw drill). */
  readonly fleet?: FleetOptions;
  /**
   * Seconds of load before the baseline (Redis clients and keys, fds) is taken and the first fault
   * runs (default 6); on a loaded machine every process may not have served each kind by then.
   */
  readonly warmupSeconds?: number;
  /** The tus uploaders' clip (default 1 s at 160x120); a longer one keeps an upload in progress. */
  readonly clip?: { readonly seconds: number; readonly size: string };
  /** After the load, before the count, fleet still up; what it pushes to `acked` counts as acknowledged. */
  readonly afterLoad?: (fleet: Fleet, load: { acked: Acked[]; statuses: ReadonlyMap<string, string> }) => Promise<void>;
}

export type Fault = (fleet: Fleet) => Promise<void>;

/** The rotation. Each returns once the fault is over (the process restarted, the door open again). */
const restartApi =
  (name: 'A' | 'B'): Fault =>
  async (f) => {
    await f.killApi(name); // SIGKILL: requests and PATCHes in flight on it are cut
    await sleep(1_000);
    await f.startApi(name);
  };
const restartWorker =
  (i: number): Fault =>
  async (f) => {
    await f.killWorker(i); // SIGKILL mid-job: its jobs stall and go to the other worker
    await sleep(500);
    await f.startWorker(i);
  };
const FAULTS: Record<string, Fault> = {
  'api-A-sigkill': restartApi('A'),
  'worker-0-sigkill': restartWorker(0),
  'balancer-drop': async (f) => {
    for (let i = 0; i < 3; i++) {
      f.balancer.dropAll();
      await sleep(300);
    }
  },
  'redis-restart': async (f) => {
    await f.redis.stop('SIGKILL'); // no persistence: it comes back empty
    await sleep(2_000);
    await f.redis.start();
  },
  'api-B-sigkill': restartApi('B'),
  'worker-1-sigkill': restartWorker(1),
  'postgres-restart': async (f) => {
    await f.postgres!.stop('immediate'); // a crash: recovery on start
    await sleep(2_000);
    await f.postgres!.start();
  },
  'storage-unavailable-10s': async (f) => {
    f.storageDoor.refuse(true);
    await sleep(10_000);
    f.storageDoor.refuse(false);
  },
};

/**
 * After a fault: the time until the fleet works again, i.e. a new frame is acknowledged through
 * the balancer (the agent retrying) and some frame was processed after the fault ended.
 */
async function recoveryProbe(fleet: Fleet, ctx: LoadContext, faultEnded: Date): Promise<boolean> {
  const key = randomUUID();
  const giveUp = Math.min(ctx.giveUpAt, Date.now() + 120_000);
  let id: string | undefined;
  while (!id && Date.now() < giveUp) {
    const a = await submitFrame(fleet.url, fleet.agentKey, {
      agent: 'cam',
      channel: 'news',
      png: makePng(24, 18, { seed: faultEnded.getTime() % 1_000_000 }),
      idempotencyKey: key,
      timeoutMs: 10_000,
    });
    if (a.status === 202) id = String(a.body?.['id']);
    else await sleep(100);
  }
  if (!id) return false;
  ctx.acked.push({ id, kind: 'image', key });
  while (Date.now() < giveUp) {
    const rows = await fleet.sql
      .query<{ n: number }>(
        "SELECT count(*)::int AS n FROM submission_events WHERE to_status = 'needs_review' AND created_at > $1",
        [faultEnded],
      )
      .catch(() => null);
    if ((rows?.rows[0]?.n ?? 0) > 0) return true;
    await sleep(100);
  }
  return false;
}

/** Every entry of the review-changes stream, read as it is written (the stream is lost with Redis). */
function streamRecorder(fleet: Fleet) {
  const key = `{${fleet.prefix}}:review-changes`; // the settings hash-tag the prefix
  const seen = new Map<string, string>();
  let last = '0-0';
  let stopped = false;
  const redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: 1, lazyConnect: false });
  redis.on('error', () => undefined);
  const loop = (async () => {
    while (!stopped) {
      try {
        const rows = await redis.xrange(key, `(${last}`, '+');
        if (rows.length === 0 && (await redis.exists(key)) === 0) last = '0-0'; // Redis came back empty
        for (const [id, fields] of rows) {
          seen.set(id, fields[fields.indexOf('change') + 1] ?? '');
          last = id;
        }
      } catch {
        // Redis restarting
      }
      await sleep(100);
    }
  })();
  return {
    seen,
    async stop() {
      stopped = true;
      await loop;
      redis.disconnect();
    },
  };
}

/** Everything the clients did and saw, and the faults with their recovery times. */
async function driveLoad(fleet: Fleet, options: FleetRunOptions, clip: Buffer) {
  const tally = new Tally();
  const acked: Acked[] = [];
  const decided: Decided[] = [];
  const uploads: Upload[] = [];
  const live: LiveEvent[] = [];
  const liveStats: { reconnects: number; resyncs?: number } = { reconnects: 0 };
  const loadStart = Date.now();
  const ctx: LoadContext = {
    fleet,
    tally,
    acked,
    stopAt: loadStart + options.seconds * 1000,
    giveUpAt: loadStart + options.seconds * 1000 + 180_000,
  };
  let liveDone = false;
  const recorder = streamRecorder(fleet);
  const liveRun = liveStream(ctx, REVIEWERS[0], live, liveStats, () => liveDone);
  const clients = Promise.all([
    imageAgent(ctx, 0),
    imageAgent(ctx, 1),
    mcpAgent(ctx),
    poller(ctx),
    tusUploader(ctx, clip, uploads),
    reviewer(ctx, REVIEWERS[0], decided, 0),
    reviewer(ctx, REVIEWERS[1], decided, 1),
  ]);

  await sleep((options.warmupSeconds ?? 6) * 1000); // every process has served some of each kind of request
  const baseline = { redis: await redisFigures(fleet), fds: fleet.fds() };
  // Faults rotate until the load stops; each is followed by a probe timing the recovery.
  const injected: Record<string, number[]> = {};
  // When each fault ran, to place the clients' unexpected answers (each carries its time).
  const timeline: string[] = [];
  const faults = options.faults ?? FAULTS;
  const names = Object.keys(faults);
  // Every kind at least once, however short the run; the load goes on a little after the last.
  for (let i = 0; i < names.length || Date.now() + 12_000 < ctx.stopAt; i++) {
    const name = names[i % names.length]!;
    const at = Date.now();
    await faults[name]!(fleet);
    timeline.push(`${new Date(at).toISOString()} → ${new Date().toISOString()} ${name}`);
    const recovered = await recoveryProbe(fleet, ctx, new Date());
    (injected[name] ??= []).push(recovered ? Date.now() - at : Number.POSITIVE_INFINITY);
    await sleep(Math.max(0, at + options.faultEverySeconds * 1000 - Date.now()));
  }
  ctx.stopAt = Math.max(ctx.stopAt, Date.now() + 5_000);
  await clients;
  const loadSeconds = (Date.now() - loadStart) / 1000;

  // Everything acknowledged reaches a final or reviewable state.
  const ids = [...new Set(acked.map((a) => a.id))];
  const statusOf = async () =>
    new Map(
      (
        await fleet.sql.query<{ id: string; status: string }>(
          // A failed frame is named with its failure code: the cause is what a reader needs.
          `SELECT id, status::text || coalesce(' ' || failure_code, '') AS status FROM submissions WHERE id = ANY($1)`,
          [ids],
        )
      ).rows.map((r) => [r.id, r.status]),
    );
  let statuses = await statusOf();
  // A missing row never comes (it was committed before the 202): lost at once (async failover).
  for (let deadline = Date.now() + 180_000; Date.now() < deadline;) {
    if (ids.every((id) => !statuses.has(id) || FINAL_OR_REVIEWABLE.has(statuses.get(id)!))) break;
    await sleep(500);
    statuses = await statusOf();
  }
  const lost = ids.filter((id) => !FINAL_OR_REVIEWABLE.has(statuses.get(id) ?? ''));

  // Let locks and claims expire (WORKER_LOCK_SECONDS=3, tus lock TTL), the live stream catch up.
  await sleep(8_000);
  liveDone = true;
  await liveRun;
  await recorder.stop();
  return {
    tally,
    acked,
    decided,
    uploads,
    live,
    liveStats,
    recorder,
    injected,
    timeline,
    baseline,
    loadSeconds,
    statuses,
    lost,
  };
}

/** Every change the Redis stream held after the live client's first event reached it, once. */
function liveStreamCheck(live: LiveEvent[], recorded: Map<string, string>) {
  const firstLive = live[0]?.id;
  const seenLive = new Map<string, number>();
  for (const e of live) seenLive.set(e.id, (seenLive.get(e.id) ?? 0) + 1);
  const after = (a: string, b: string) => {
    const [am, as] = a.split('-').map(Number);
    const [bm, bs] = b.split('-').map(Number);
    return am! > bm! || (am === bm && as! > bs!);
  };
  const missedLive = firstLive
    ? [...recorded.keys()].filter((id) => after(id, firstLive) && !seenLive.has(id))
    : ['no event reached the live stream'];
  return { missedLive, liveTwice: [...seenLive.values()].filter((n) => n > 1).length };
}

/** What the database, storage, Redis and the live stream hold, against what the clients saw. */
async function countRun(fleet: Fleet, load: Awaited<ReturnType<typeof driveLoad>>, clip: Buffer, started: number) {
  const { tally, acked, decided, uploads, live, liveStats, recorder, injected, baseline, loadSeconds, statuses, lost } =
    load;
  const ids = [...new Set(acked.map((a) => a.id))];
  const end = { redis: await redisFigures(fleet), fds: fleet.fds() };
  const q = <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
    fleet.sql.query<T>(text, params).then((r) => r.rows);

  const duplicatedTransitions = await q<{ id: string; to: string; n: number }>(
    `SELECT submission_id AS id, to_status::text AS to, count(*)::int AS n FROM submission_events
     WHERE type = 'transition' GROUP BY 1, 2 HAVING count(*) > 1`,
  );
  const withoutAck = 'SELECT count(*)::int AS n FROM submissions WHERE NOT (id = ANY($1))';
  const [{ n: createdWithoutAck }] = (await q<{ n: number }>(withoutAck, [ids])) as [{ n: number }];
  const inFlightKeys = await q<{ key: string }>("SELECT key FROM idempotency_records WHERE state = 'in_flight'");
  const variantRows = await q<{ id: string; n: number }>(
    "SELECT submission_id AS id, count(*)::int AS n FROM media_objects WHERE kind = 'variant' GROUP BY 1",
  );
  const badUploads = await uploadsNotIntact(fleet, uploads, clip);
  const decidedById = new Map<string, Decided[]>();
  for (const d of decided) decidedById.set(d.id, [...(decidedById.get(d.id) ?? []), d]);
  const decisionsLost = decided.filter((d) => statuses.get(d.id) !== d.status && (statuses.get(d.id) ?? '') !== '');
  const decisionsTwice = [...decidedById.values()].filter((list) => list.length > 1);

  const { missedLive, liveTwice } = liveStreamCheck(live, recorder.seen);

  const expectedVariantWrites = variantRows.reduce((sum, r) => sum + r.n, 0);
  const variantWrites = [...fleet.variantWrites.values()].reduce((a, b) => a + b, 0);
  const byKind = (kind: Acked['kind']) => acked.filter((a) => a.kind === kind).length;
  const recovery = Object.fromEntries(
    Object.entries(injected).map(([name, times]) => [
      name,
      { count: times.length, p50_ms: quantile(times, 0.5), max_ms: Math.max(...times) },
    ]),
  );
  const figures = {
    seconds_of_load: Math.round(loadSeconds),
    wall_seconds: Math.round((Date.now() - started) / 1000),
    requests: tally.requests,
    answers_by_status: tally.byStatus,
    acknowledged: { images: byKind('image'), mcp_frames: byKind('mcp'), video_uploads: byKind('video') },
    uploads: {
      sessions: uploads.length,
      completed: uploads.filter((u) => u.done).length,
      interrupted_and_resumed: uploads.reduce((n, u) => n + u.interruptions, 0),
      checksum_mismatches: badUploads.length,
    },
    decisions: {
      promoted: decided.filter((d) => d.status === 'promoted').length,
      rejected_in_bulk: decided.filter((d) => d.status === 'rejected').length,
    },
    faults: Object.fromEntries(Object.entries(injected).map(([k, v]) => [k, v.length])),
    faults_total: Object.values(injected).reduce((n, v) => n + v.length, 0),
    recovery,
    lost: lost.length,
    processing: await processingFigures(fleet.sql, acked),
    duplicated: {
      transitions: duplicatedTransitions.length,
      submissions_created_without_ack: createdWithoutAck,
      decisions_applied_twice: decisionsTwice.length,
      live_events_delivered_twice: liveTwice,
    },
    decisions_lost: decisionsLost.length,
    stuck: {
      idempotency_claims_in_flight: inFlightKeys.length,
      active_jobs: end.redis.activeJobs,
      lock_keys: end.redis.lockKeys.length,
    },
    clients: {
      retries: tally.retries,
      unavailable_503_with_retry_after: tally.unavailableWithRetryAfter,
      unavailable_503_without_retry_after: tally.unavailableWithoutRetryAfter,
      server_errors_500: tally.serverErrors.length,
      no_answer: tally.byStatus['0'] ?? 0,
      unexpected: tally.unexpected.length,
    },
    live_stream: {
      events: live.length,
      reconnects: liveStats.reconnects,
      resyncs: liveStats.resyncs ?? 0,
      stream_entries_recorded: recorder.seen.size,
      missed: missedLive.length,
    },
    variant_writes: { rows: expectedVariantWrites, puts_on_the_wire: variantWrites },
    balancer: fleet.balancer.stats,
    storage_door: fleet.storageDoor.stats,
    redis: {
      clients: [baseline.redis.clients, end.redis.clients],
      structural_keys: [baseline.redis.structuralKeys, end.redis.structuralKeys],
      keys: [baseline.redis.keys, end.redis.keys],
    },
    fds: { baseline: baseline.fds, end: end.fds },
  };
  return {
    figures,
    details: {
      lost: lost.map((id) => `${id} ${statuses.get(id)}`),
      duplicatedTransitions,
      inFlightKeys: inFlightKeys.map((r) => r.key),
      badUploads,
      decisionsLost,
      decisionsTwice,
      missedLive,
      /** When the live client received each change (after a Redis switch, events must come again). */
      liveEventTimes: live.map((e) => e.at ?? 0),
      serverErrors: tally.serverErrors,
      unexpected: tally.unexpected,
      lockKeys: end.redis.lockKeys,
      unavailableWithoutRetryAfter: tally.unavailableWithoutRetryAfter,
      faultTimeline: load.timeline,
      baseline,
      end,
    },
  };
}

export async function runFleetFaults(options: FleetRunOptions) {
  const started = Date.now();
  const fleet = await startFleet(options.fleet);
  const scratch = await mkdtemp(join(tmpdir(), 'fd-fleet-clip-'));
  try {
    const clip = readFileSync(
      makeClip(scratch, 'clip.mp4', options.clip?.seconds ?? 1, options.clip?.size ?? '160x120'),
    );
    const load = await driveLoad(fleet, options, clip);
    await options.afterLoad?.(fleet, load);
    const { figures, details } = await countRun(fleet, load, clip, started);
    reportFigures(options.name, figures);
    // Every process's log (warnings and errors), for whoever reads a failure.
    mkdirSync(join(root, 'test-results'), { recursive: true });
    writeFileSync(join(root, `test-results/${options.name}.log`), fleet.output());
    writeFileSync(join(root, `test-results/${options.name}-details.json`), JSON.stringify(details, null, 2));
    return { figures, details };
  } finally {
    await fleet.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}
