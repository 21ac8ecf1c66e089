// Unit costs for the capacity section of docs/operations.md: one API and one worker process
// (real processes, bundled as startStack runs them) on a database and Redis prefix of their own; N frames submitted, then
// per accepted frame: API CPU, worker CPU, PostgreSQL transactions and row writes (of this
// database only), database bytes, Redis commands (of this prefix only, MONITOR) and bytes kept
// in Redis, and bytes stored. The tool's own queries (its polling, the stats reads) are not
// counted; what the idle stack does on its own (readiness checks, the reconciler, BullMQ's idle
// polls) is measured over IDLE_MS (30 s) before the frames and reported beside the per-frame figures,
// which are given both raw and net of it (docs/operations.md, "Capacity").
//   npx tsx --tsconfig tsconfig.base.json tools/capacity/unit-costs.ts [frames=40]
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { makePng, startStack, testRedisUrl } from '@framedesk/testing';
import { bytesUnder, cpuMs } from './measure';

const frames = Number(process.argv[2] ?? 40);
const IDLE_MS = 30_000; // one round of the 30 s timers (readiness checks, the reconciler)

const stack = await startStack({ workers: 1, env: { RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'warn' } });
const sql = new pg.Client({ connectionString: stack.database.url });
await sql.connect();
const dbStats = async () =>
  (
    await sql.query<{ xact: string; writes: string; bytes: string }>(
      `SELECT xact_commit::text AS xact, (tup_inserted + tup_updated + tup_deleted)::text AS writes,
              (SELECT sum(pg_total_relation_size(c.oid))::text FROM pg_class c
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'm')) AS bytes
         FROM pg_stat_database WHERE datname = current_database()`,
    )
  ).rows[0]!;
/** Bytes Redis holds under `prefix` (SCAN + MEMORY USAGE). */
const redisBytes = async (redis: Redis, prefix: string) => {
  let cursor = '0';
  let bytes = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    for (const key of keys) bytes += Number((await redis.call('MEMORY', 'USAGE', key)) ?? 0);
    cursor = next;
  } while (cursor !== '0');
  return bytes;
};
try {
  const key = await stack.createAgent('cam', ['news']);
  const png = makePng(1280, 720, { seed: 3 });
  const prefix = stack.env['REDIS_PREFIX']!;
  const storage = stack.env['STORAGE_FS_ROOT']!;
  const apiPid = stack.api.child.pid!;
  const workerPid = stack.workers[0]!.child.pid!;
  const probe = new Redis(testRedisUrl());
  const before = {
    db: await dbStats(),
    bytes: bytesUnder(storage),
    redis: await redisBytes(probe, prefix),
  };

  const monitor = new Redis(testRedisUrl());
  let redisOps = 0;
  const redisByName = new Map<string, number>();
  const watch = await monitor.monitor();
  watch.on('monitor', (_time: string, args: string[]) => {
    if (!args.some((a) => a.includes(prefix))) return;
    redisOps++;
    const name = args[0]!.toLowerCase();
    redisByName.set(name, (redisByName.get(name) ?? 0) + 1);
  });
  // Idle: what the stack does on its own over IDLE_MS (one stats read of the tool's own between).
  const idleFrom = { db: await dbStats(), ops: redisOps, at: Date.now() };
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idleTo = { db: await dbStats(), ops: redisOps, at: Date.now() };
  const idleSeconds = (idleTo.at - idleFrom.at) / 1000;
  const idle = {
    xactPerSecond: (Number(idleTo.db.xact) - Number(idleFrom.db.xact) - 1) / idleSeconds,
    redisPerSecond: (idleTo.ops - idleFrom.ops) / idleSeconds,
  };
  redisByName.clear();
  const start = {
    db: await dbStats(),
    ops: redisOps,
    at: Date.now(),
    api: cpuMs(apiPid),
    worker: cpuMs(workerPid),
  };
  let ownQueries = 1; // the stats read just above commits after its own snapshot
  const ids: string[] = [];
  for (let i = 0; i < frames; i += 4) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(4, frames - i) }, async () => {
        const form = new FormData();
        const metadata = { agent_slug: 'cam', channel_slug: 'news', date: '20260101', title: 'capacity' };
        form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
        form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'f.png');
        const response = await fetch(`${stack.apiUrl}/v1/frame-submissions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
          body: form,
        });
        return ((await response.json()) as { id: string }).id;
      }),
    );
    ids.push(...batch);
  }
  for (;;) {
    ownQueries++;
    const { rows } = await sql.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM submissions WHERE id = ANY($1) AND status = 'needs_review'",
      [ids],
    );
    if (Number(rows[0]!.n) === ids.length) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await new Promise((r) => setTimeout(r, 1000));
  // Counted before the probes below, whose own SCAN and MEMORY USAGE would be counted too.
  const counted = { ops: redisOps, byName: new Map(redisByName) };
  const end = { db: await dbStats(), at: Date.now() };
  const seconds = (end.at - start.at) / 1000;
  const xacts = Number(end.db.xact) - Number(start.db.xact) - ownQueries;
  const redisCommands = counted.ops - start.ops;
  watch.disconnect();
  const after = {
    api: cpuMs(apiPid),
    worker: cpuMs(workerPid),
    db: await dbStats(),
    bytes: bytesUnder(storage),
    redis: await redisBytes(probe, prefix),
  };
  probe.disconnect();
  monitor.disconnect();
  const per = (a: number, b: number) => ((a - b) / frames).toFixed(2);
  console.log(
    JSON.stringify(
      {
        frames,
        input_png_bytes: png.length,
        api_cpu_ms_per_frame: per(after.api, start.api),
        worker_cpu_ms_per_frame: per(after.worker, start.worker),
        seconds,
        pg_transactions_per_frame: (xacts / frames).toFixed(2),
        pg_transactions_per_frame_net_of_idle: ((xacts - idle.xactPerSecond * seconds) / frames).toFixed(2),
        idle_pg_transactions_per_second: idle.xactPerSecond.toFixed(2),
        pg_row_writes_per_frame: per(Number(after.db.writes), Number(before.db.writes)),
        redis_commands_per_frame: (redisCommands / frames).toFixed(2),
        redis_commands_per_frame_net_of_idle: ((redisCommands - idle.redisPerSecond * seconds) / frames).toFixed(2),
        idle_redis_commands_per_second: idle.redisPerSecond.toFixed(2),
        redis_commands_per_frame_by_name: Object.fromEntries(
          [...counted.byName].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, (n / frames).toFixed(2)]),
        ),
        stored_bytes_per_frame: per(after.bytes, before.bytes),
        pg_table_and_index_bytes_per_frame: per(Number(after.db.bytes), Number(before.db.bytes)),
        redis_bytes_retained_per_frame: per(after.redis, before.redis),
      },
      null,
      2,
    ),
  );
} finally {
  await sql.end();
  await stack.stop();
}
