// The retention purge's own cost, for "Growth with retention" in docs/operations.md: one real
// worker process (bundled, as startStack runs it) on a database and storage of its own; N rejected frames seeded as
// the pipeline leaves them (original 544 KB + three variants, rows, four transition events), then
// the channel is given `--rejected 0d` and the worker's maintenance job purges them. Per purged
// frame: worker CPU, PostgreSQL transactions and row writes (this database only), storage
// deletions and bytes freed; and the frames purged per second of wall time at an unlimited rate.
//   npx tsx --tsconfig tsconfig.base.json tools/capacity/purge-cost.ts [frames=2000]
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { createDatabase } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { createFsStorage, storageKeys } from '@framedesk/storage';
import { startStack } from '@framedesk/testing';
import { bytesUnder, cpuMs } from './measure';

const frames = Number(process.argv[2] ?? 2000);
const BUCKET = 'framedesk-originals';

const stack = await startStack({
  workers: 1,
  env: { LOG_LEVEL: 'warn', RETENTION_INTERVAL_SECONDS: '1', RETENTION_DELETES_PER_SECOND: '1000000' },
});
const sql = new pg.Client({ connectionString: stack.database.url });
await sql.connect();
const db = createDatabase({ url: stack.database.url, poolSize: 4 });
const dbStats = async () =>
  (
    await sql.query<{ xact: string; writes: string }>(
      `SELECT xact_commit::text AS xact, (tup_inserted + tup_updated + tup_deleted)::text AS writes
         FROM pg_stat_database WHERE datname = current_database()`,
    )
  ).rows[0]!;
const tableBytes = async () =>
  Object.fromEntries(
    (
      await sql.query<{ name: string; bytes: string }>(
        `SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`,
      )
    ).rows.map((r) => [r.name, Number(r.bytes)]),
  );
try {
  const storageRoot = stack.env['STORAGE_FS_ROOT']!;
  const storage = createFsStorage(storageRoot);
  const agent = await db.repos.agents.create('purge-cam');
  const { channel } = await db.repos.channels.ensure('news');
  const original = randomBytes(544 * 1024);
  const variants = { public: 66, preview: 28, thumbnail: 5 } as const; // KB, as the 1280×720 frame of unit-costs.ts
  const seeded = Date.now();
  for (let i = 0; i < frames; i++) {
    const id = newId('submission');
    await db.transaction(async (repos) => {
      await repos.submissions.create(
        { id, status: 'received', mediaType: 'image', agentId: agent.id, channelId: channel.id, date: '20260101',
          metadata: { title: 'capacity' }, title: 'capacity', visibility: 'promotion_eligible' }, // prettier-ignore
        { type: 'agent', id: agent.id },
      );
      const objects = [
        { kind: 'original' as const, name: 'original', key: storageKeys.original(id, 'png'), data: original },
        ...Object.entries(variants).map(([name, kb]) => ({
          kind: 'variant' as const,
          name,
          key: storageKeys.variant(id, name),
          data: original.subarray(0, kb * 1024),
        })),
      ];
      for (const o of objects) {
        const stored = await storage.put(BUCKET, o.key, o.data, { contentType: 'image/webp' });
        await repos.mediaObjects.upsert({ submissionId: id, kind: o.kind, name: o.name, bucket: BUCKET, key: o.key,
          contentType: 'image/webp', byteSize: stored.byteSize, sha256: stored.sha256 }); // prettier-ignore
      }
    });
    for (const to of ['media_processing', 'needs_review'] as const)
      await db.transition({ id, to, actor: { type: 'system' } });
    await db.transition({ id, to: 'rejected', actor: { type: 'reviewer' }, patch: { reviewDecision: 'rejected' } });
  }
  console.log(`seeded ${frames} rejected frames in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);
  await sql.query('VACUUM ANALYZE');
  const workerPid = stack.workers[0]!.child.pid!;
  const tablesBefore = await tableBytes();
  const before = { worker: cpuMs(workerPid), db: await dbStats(), bytes: bytesUnder(storageRoot), load: loadavg()[0]! };
  const started = Date.now();
  const set = await stack.cli(['channel', 'retention', 'set', 'news', '--rejected', '0d', '--yes']);
  if (set.code !== 0) throw new Error(set.stderr);
  const cliDone = Date.now();
  let polls = 0;
  for (;;) {
    polls++;
    const { rows } = await sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM submissions WHERE purged_at IS NULL',
    );
    if (rows[0]!.n === 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (Date.now() - cliDone) / 1000;
  // PostgreSQL backends flush their statistics when idle for a second or more.
  await new Promise((r) => setTimeout(r, 3_000));
  const after = { worker: cpuMs(workerPid), db: await dbStats(), bytes: bytesUnder(storageRoot), load: loadavg()[0]! };
  const per = (a: number, b: number) => (b - a) / frames;
  const result = {
    frames,
    worker_cpu_ms_per_frame: +per(before.worker, after.worker).toFixed(2),
    // This script's own polling left out; the other maintenance jobs' queries are in.
    pg_transactions_per_frame: +per(Number(before.db.xact), Number(after.db.xact) - polls - 1).toFixed(3),
    pg_row_writes_per_frame: +per(Number(before.db.writes), Number(after.db.writes)).toFixed(2),
    storage_deletions_per_frame: 4,
    kb_freed_per_frame: +((before.bytes - after.bytes) / frames / 1024).toFixed(1),
    frames_per_second: +(frames / seconds).toFixed(0),
    wall_seconds: +seconds.toFixed(1),
    cli_seconds: +((cliDone - started) / 1000).toFixed(1),
    // What one frame holds in each table (rows and indexes) before the purge; the purge deletes
    // its media_objects rows (the space is reused by new rows) and adds one event.
    table_bytes_per_frame: Object.fromEntries(
      Object.entries(tablesBefore)
        .filter(([, bytes]) => bytes > 64 * 1024)
        .map(([name, bytes]) => [name, Math.round(bytes / frames)]),
    ),
    load_average_1m: [before.load, after.load],
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await db.close();
  await sql.end();
  await stack.stop();
}
