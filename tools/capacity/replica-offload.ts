// What the read replicas take off the primary (issue 44 point 5), for the capacity section of
// docs/performance.md: the primary PostgreSQL's CPU per frame reviewed under the review desk's load
// (queue and timeline pages, decisions), with and without DATABASE_READ_URL, on the Patroni engine
// (`startEngine('patroni')`: HAProxy's read-write port 25000, read-only 25001).
//   npx tsx --tsconfig tsconfig.base.json tools/capacity/replica-offload.ts [frames=120] [reps=2]
//
// Each run: a migrated database of its own on the cluster, one API (bundled, as startStack runs it)
// with DATABASE_URL on the read-write port and, in the "replica" mode, DATABASE_READ_URL on the
// read-only port; `frames` frames submitted over REVIEWERS channels and processed by one worker,
// which is then stopped (its CPU is not the review desk's). Then REVIEWERS reviewers, one channel
// each, at once: until their channel's queue is empty, one queue page (50), one timeline page (50)
// and one decision (alternately promote and reject). Measured over that load, from /proc: utime +
// stime of every process of each node (the postmaster, its live children, and its children that
// exited: cutime + cstime), and of this database's backends alone on the primary. An idle window of
// the same stack (IDLE_MS) before it gives what runs anyway (Patroni's checks, the API's replica
// probe); per-frame figures are given raw and net of it. The cluster is shared: the transactions of
// other databases during the window are reported, and a run whose primary changed is refused.
// Nothing here switches over or kills a member.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createClusterDatabase,
  makePng,
  PATRONI_INSTANCES,
  PATRONI_NODES,
  type PatroniNode,
  patroniPrimary,
  patroniQuery,
  patroniUrls,
  postmasterPid,
  ReviewerClient,
  startEngine,
  startStack,
  type Stack,
} from '@framedesk/testing';

const frames = Number(process.argv[2] ?? 120);
const reps = Number(process.argv[3] ?? 2);
const REVIEWERS = 4;
const IDLE_MS = 10_000;
const PASSWORD = 'capacity-reviewer-password';

const ticksMs = (n: string | undefined) => (Number(n) * 1000) / 100; // USER_HZ = 100
/** utime + stime (and, with `reaped`, cutime + cstime: its children that exited) of a process. */
function cpuOf(pid: number, reaped = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ticksMs(f[11]) + ticksMs(f[12]) + (reaped ? ticksMs(f[13]) + ticksMs(f[14]) : 0);
  } catch {
    return 0; // gone meanwhile: counted in its parent's cutime + cstime once reaped
  }
}
/** Every process of a node: its postmaster (with reaped children) and the postmaster's live children. */
function nodeCpuMs(node: PatroniNode): number {
  const postmaster = postmasterPid(PATRONI_INSTANCES.default, node);
  if (!postmaster) return Number.NaN;
  let ms = cpuOf(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = readFileSync(join('/proc', entry, 'stat'), 'utf8')
        .split(') ')[1]!
        .split(' ');
      if (Number(f[1]) === postmaster) ms += cpuOf(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return ms;
}

interface Counters {
  readonly primary: PatroniNode;
  readonly nodes: Record<string, number>;
  /** CPU of this database's backends on the primary, by pid. */
  readonly backends: Map<number, number>;
  /** Transactions of this database, and of every other one but `postgres` (Patroni's and ours), on the primary. */
  readonly ownXacts: number;
  readonly otherXacts: number;
  readonly at: number;
}

async function counters(database: string): Promise<Counters> {
  const primary = await patroniPrimary();
  if (!primary) throw new Error('no primary');
  const url = patroniUrls('postgres').node(primary);
  const pids = await patroniQuery<{ pid: number }>(url, 'SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    database,
  ]);
  const xacts = await patroniQuery<{ own: string; other: string }>(
    url,
    `SELECT sum(xact_commit + xact_rollback) FILTER (WHERE datname = $1)::text AS own,
            sum(xact_commit + xact_rollback) FILTER (WHERE datname NOT IN ($1, 'postgres'))::text AS other
       FROM pg_stat_database`,
    [database],
  );
  return {
    primary,
    nodes: Object.fromEntries(PATRONI_NODES.map((n) => [n, nodeCpuMs(n)])),
    backends: new Map(pids.map((r) => [r.pid, cpuOf(r.pid)])),
    ownXacts: Number(xacts[0]?.own ?? 0),
    otherXacts: Number(xacts[0]?.other ?? 0),
    at: Date.now(),
  };
}

/** CPU and transactions between two counter readings (backends that appeared meanwhile count whole). */
function delta(a: Counters, b: Counters) {
  if (a.primary !== b.primary) throw new Error(`the primary changed (${a.primary} → ${b.primary}): run refused`);
  let backendsMs = 0;
  for (const [pid, ms] of b.backends) backendsMs += ms - (a.backends.get(pid) ?? 0);
  const replicas = PATRONI_NODES.filter((n) => n !== a.primary);
  return {
    seconds: (b.at - a.at) / 1000,
    primaryMs: b.nodes[a.primary]! - a.nodes[a.primary]!,
    replicasMs: replicas.reduce((sum, n) => sum + b.nodes[n]! - a.nodes[n]!, 0),
    backendsMs,
    ownXacts: b.ownXacts - a.ownXacts,
    otherXacts: b.otherXacts - a.otherXacts,
  };
}

async function prepare(stack: Stack, database: string): Promise<{ channels: string[]; ids: string[] }> {
  const channels = Array.from({ length: REVIEWERS }, (_, i) => `desk-${i}`);
  // The CLI is a process of its own; on a loaded machine one may time out: tried up to three times.
  const retried = async <T>(work: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  };
  const key = await retried(() => stack.createAgent('cam', channels));
  await retried(async () => {
    const created = await stack.cli(
      ['reviewer', 'create', 'rev@example.com', '--password-stdin', '--role', 'admin'],
      `${PASSWORD}\n`,
    );
    if (created.code !== 0 && !/exists/i.test(created.stderr)) throw new Error(`reviewer create: ${created.stderr}`);
  });
  const ids: string[] = [];
  for (let i = 0; i < frames; i += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, frames - i) }, async (_, j) => {
        const form = new FormData();
        const channel = channels[(i + j) % REVIEWERS]!;
        const metadata = { agent_slug: 'cam', channel_slug: channel, date: '20260101', title: `frame ${i + j}` };
        form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
        const png = makePng(320, 180, { seed: 1000 + i + j });
        form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'f.png');
        // A connection cut on a loaded machine is sent again with the same key: a replay is harmless.
        const idempotencyKey = randomUUID();
        const response = await retried(() =>
          fetch(`${stack.apiUrl}/v1/frame-submissions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
            body: form,
          }),
        );
        if (response.status !== 202) throw new Error(`submit: ${response.status} ${await response.text()}`);
        return ((await response.json()) as { id: string }).id;
      }),
    );
    ids.push(...batch);
  }
  const url = patroniUrls(database);
  const waiting = async (at: string) =>
    Number(
      (
        await patroniQuery<{ n: string }>(
          at,
          "SELECT count(*)::text AS n FROM submissions WHERE id = ANY($1) AND status = 'needs_review'",
          [ids],
        )
      )[0]!.n,
    );
  while ((await waiting(url.readWrite)) < ids.length) await new Promise((r) => setTimeout(r, 250));
  // The replicas have it all too before the load starts (the read-only port reaches one of them).
  while ((await waiting(url.readOnly)) < ids.length) await new Promise((r) => setTimeout(r, 100));
  return { channels, ids };
}

/** One reviewer per channel, at once: queue page, timeline page, a decision, until the queue is empty. */
async function reviewLoad(stack: Stack, channels: readonly string[]) {
  const tally = { decisions: 0, queuePages: 0, timelinePages: 0, unexpected: [] as string[] };
  await Promise.all(
    channels.map(async (channel) => {
      const client = new ReviewerClient(stack.apiUrl);
      const login = await client.login('rev@example.com', PASSWORD);
      if (login.status !== 201) throw new Error(`login: ${login.status}`);
      for (let n = 0; ; n++) {
        const queue = await client.call('GET', `/review/queue?channel=${channel}&limit=50`);
        tally.queuePages++;
        const items = ((await queue.json()) as { items?: { id: string }[] }).items ?? [];
        const timeline = await client.call('GET', `/review/channels/${channel}/timeline?limit=50`);
        await timeline.arrayBuffer();
        tally.timelinePages++;
        if (queue.status !== 200 || timeline.status !== 200)
          tally.unexpected.push(`pages ${queue.status}/${timeline.status}`);
        const item = items[0];
        if (!item) return;
        const body = n % 2 === 0 ? { decision: 'promote' } : { decision: 'reject', reason: 'Duplicate' };
        const decided = await client.call('POST', `/review/submissions/${item.id}/decision`, body);
        await decided.arrayBuffer();
        if (decided.status === 200) tally.decisions++;
        else tally.unexpected.push(`decision ${decided.status}`);
      }
    }),
  );
  return tally;
}

type Mode = 'primary only' | 'replica';

const log = (message: string) => process.stderr.write(`[replica-offload ${new Date().toISOString()}] ${message}\n`);

async function run(mode: Mode) {
  log(`${mode}: database and stack`);
  const cluster = await createClusterDatabase();
  const stack = await startStack({
    workers: 1,
    database: {
      url: cluster.url,
      name: cluster.name,
      query: (sql, params) => patroniQuery(cluster.url, sql, params),
      drop: () => cluster.drop(),
    },
    env: {
      DATABASE_URL: cluster.url,
      ...(mode === 'replica' ? { DATABASE_READ_URL: cluster.readUrl } : {}),
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
    },
  });
  try {
    log(`${mode}: ${frames} frames`);
    const { channels, ids } = await prepare(stack, cluster.name);
    log(`${mode}: idle, then the review load`);
    await stack.workers[0]!.stop(); // the promotions' publish jobs wait: not the review desk's CPU
    await new Promise((r) => setTimeout(r, 1_100));
    const idleFrom = await counters(cluster.name);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idleTo = await counters(cluster.name);
    const idle = delta(idleFrom, idleTo);
    const from = await counters(cluster.name);
    const tally = await reviewLoad(stack, channels);
    await new Promise((r) => setTimeout(r, 1_100)); // backends report their transactions within a second
    const to = await counters(cluster.name);
    const load = delta(from, to);
    const n = tally.decisions;
    const net = (ms: number, idleMs: number) => (ms - (idleMs / idle.seconds) * load.seconds) / n;
    return {
      mode,
      primary: from.primary,
      frames: ids.length,
      decisions: n,
      queue_pages: tally.queuePages,
      timeline_pages: tally.timelinePages,
      unexpected: tally.unexpected,
      seconds: Number(load.seconds.toFixed(1)),
      primary_cpu_ms_per_frame: Number((load.primaryMs / n).toFixed(2)),
      primary_cpu_ms_per_frame_net_of_idle: Number(net(load.primaryMs, idle.primaryMs).toFixed(2)),
      primary_own_backends_cpu_ms_per_frame: Number((load.backendsMs / n).toFixed(2)),
      replicas_cpu_ms_per_frame: Number((load.replicasMs / n).toFixed(2)),
      replicas_cpu_ms_per_frame_net_of_idle: Number(net(load.replicasMs, idle.replicasMs).toFixed(2)),
      primary_transactions_per_frame: Number((load.ownXacts / n).toFixed(2)),
      idle_primary_cpu_ms_per_second: Number((idle.primaryMs / idle.seconds).toFixed(2)),
      idle_replicas_cpu_ms_per_second: Number((idle.replicasMs / idle.seconds).toFixed(2)),
      other_databases_transactions_during_load: load.otherXacts,
    };
  } finally {
    await stack.stop();
  }
}

await startEngine('patroni');
const results = [];
for (let rep = 0; rep < reps; rep++) {
  // Alternating, so a change in the shared machine's load falls on both modes alike.
  for (const mode of (rep % 2 === 0 ? ['primary only', 'replica'] : ['replica', 'primary only']) as Mode[]) {
    const result = await run(mode);
    process.stderr.write(`${JSON.stringify(result)}\n`);
    results.push(result);
  }
}
console.log(JSON.stringify({ frames, reps, reviewers: REVIEWERS, results }, null, 2));
