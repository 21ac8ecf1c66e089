import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import pg from 'pg';
import {
  type Engine,
  engineDir,
  isAlive,
  isRoot,
  logTail,
  portOpen,
  processPid,
  spawnProcess,
  waitForEngine,
} from './engine';

/**
 * PostgreSQL as organisations run it past one machine: three PostgreSQL 15 nodes managed by
 * Patroni (leader election in etcd), behind HAProxy, which health-checks Patroni's REST API and
 * sends the read-write port to the primary and the read-only port to the replicas. Ports are fixed
 * (docs/operations.md) and clash with nothing: the system PostgreSQL stays on 5432.
 *
 * `synchronous_mode` is on unless the folder's name ends in `-async` (`patroniAsyncDir`): a
 * commit is acknowledged only once a standby has it, so a failover loses no acknowledged write.
 */
export const PATRONI_PORTS = {
  etcdClient: 23790,
  etcdPeer: 23800,
  node0: 25431,
  node1: 25432,
  node2: 25433,
  rest0: 28008,
  rest1: 28009,
  rest2: 28010,
  readWrite: 25000,
  readOnly: 25001,
} as const;

export const PATRONI_NODES = ['node0', 'node1', 'node2'] as const;
export type PatroniNode = (typeof PATRONI_NODES)[number];

const SCOPE = 'framedesk';
const BIN_DIR = '/usr/lib/postgresql/15/bin';
const pgPort = (node: PatroniNode) => PATRONI_PORTS[node];
const restPort = (node: PatroniNode) => PATRONI_PORTS[`rest${node.slice(-1)}` as 'rest0'];

/** The database the engine's URLs name (created on the primary at start; it replicates). */
export const PATRONI_DATABASE = 'framedesk';

export const patroniUrls = (database = PATRONI_DATABASE) => ({
  readWrite: `postgresql://postgres:postgres@127.0.0.1:${PATRONI_PORTS.readWrite}/${database}`,
  readOnly: `postgresql://postgres:postgres@127.0.0.1:${PATRONI_PORTS.readOnly}/${database}`,
  node: (node: PatroniNode) => `postgresql://postgres:postgres@127.0.0.1:${pgPort(node)}/${database}`,
});

/**
 * Asynchronous replication, for the documented comparison, runs in a folder of its own whose name
 * ends in `-async` (`startEngine('patroni', { fresh: true, dir: engineDir('patroni-async') })`,
 * after stopping the default one: the ports are the same).
 */
export const patroniAsyncDir = (): string => engineDir('patroni-async');

const synchronousMode = (dir: string) => !basename(dir).endsWith('-async');

function nodeConfig(dir: string, node: PatroniNode): string {
  const data = join(dir, node);
  // JSON is YAML: no YAML writer needed.
  return JSON.stringify({
    scope: SCOPE,
    namespace: '/framedesk/',
    name: node,
    restapi: { listen: `127.0.0.1:${restPort(node)}`, connect_address: `127.0.0.1:${restPort(node)}` },
    etcd3: { hosts: [`127.0.0.1:${PATRONI_PORTS.etcdClient}`] },
    bootstrap: {
      dcs: {
        // loop_wait + 2 × retry_timeout ≤ ttl (REFERENCE.md): a failover in 3–4 s.
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 4,
        // 0: a killed primary fails over instead of being restarted in place.
        primary_start_timeout: 0,
        maximum_lag_on_failover: 1_048_576,
        synchronous_mode: synchronousMode(dir),
        postgresql: {
          use_pg_rewind: true,
          parameters: {
            max_connections: 300,
            wal_level: 'replica',
            hot_standby: 'on',
            wal_log_hints: 'on',
            max_wal_senders: 10,
            max_replication_slots: 10,
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }],
    },
    postgresql: {
      listen: `127.0.0.1:${pgPort(node)}`,
      connect_address: `127.0.0.1:${pgPort(node)}`,
      data_dir: join(data, 'data'),
      bin_dir: BIN_DIR,
      pgpass: join(data, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
        rewind: { username: 'rewinder', password: 'rewinder' },
      },
      parameters: { unix_socket_directories: data },
      pg_hba: ['local all all trust', 'host replication all 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 trust'],
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  });
}

function haproxyConfig(): string {
  const listen = (name: string, port: number, check: string) => [
    `listen ${name}`,
    `  bind 127.0.0.1:${port}`,
    `  option httpchk OPTIONS ${check}`,
    '  http-check expect status 200',
    // A node that stops being what the port wants loses its sessions at once (clients reconnect).
    '  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions',
    ...PATRONI_NODES.map(
      (node) => `  server ${node} 127.0.0.1:${pgPort(node)} maxconn 300 check port ${restPort(node)}`,
    ),
  ];
  return [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    ...listen('read_write', PATRONI_PORTS.readWrite, '/primary'),
    ...listen('read_only', PATRONI_PORTS.readOnly, '/replica'),
    '',
  ].join('\n');
}

export interface PatroniMember {
  readonly name: PatroniNode;
  readonly role: string; // leader | sync_standby | replica
  readonly state: string;
  readonly lag?: number | string;
}

async function rest(node: PatroniNode, path: string, init?: RequestInit): Promise<Response> {
  return fetch(`http://127.0.0.1:${restPort(node)}${path}`, { ...init, signal: AbortSignal.timeout(2000) });
}

/** The cluster as Patroni sees it (asked of any node that answers). */
export async function patroniMembers(): Promise<PatroniMember[]> {
  for (const node of PATRONI_NODES) {
    try {
      const response = await rest(node, '/cluster');
      if (response.ok) return ((await response.json()) as { members: PatroniMember[] }).members;
    } catch {
      // ask the next one
    }
  }
  throw new Error('[engines] no Patroni node answers');
}

/** The node Patroni runs as primary (leader) now, if any. */
export async function patroniPrimary(): Promise<PatroniNode | undefined> {
  const members = await patroniMembers();
  return members.find((m) => m.role === 'leader' && m.state === 'running')?.name;
}

/** Resolves once a primary runs with a streaming standby (a sync standby in synchronous mode). */
export async function waitForHealthy(dir: string = engineDir('patroni'), timeoutMs = 60_000): Promise<void> {
  await waitForEngine(() => clusterHealthy(dir), 'patroni cluster (a primary and a streaming standby)', {
    timeoutMs,
    intervalMs: 500,
    logs: () => logTail(dir, PROCESSES),
  });
}

/** True when a primary runs and (synchronous mode) a sync standby is streaming from it. */
async function clusterHealthy(dir: string): Promise<boolean> {
  const members = await patroniMembers();
  const leader = members.some((m) => m.role === 'leader' && m.state === 'running');
  const standbys = members.filter((m) => m.role !== 'leader' && ['running', 'streaming'].includes(m.state));
  const sync = !synchronousMode(dir) || standbys.some((m) => m.role === 'sync_standby');
  return leader && standbys.length >= 1 && sync;
}

/**
 * A planned switchover, as an operator runs it (`patronictl switchover`): to `candidate`, or to
 * the sync standby (synchronous mode requires it), or to any replica. Resolves once the new
 * primary serves writes through HAProxy.
 */
export async function patroniSwitchover(candidate?: PatroniNode): Promise<PatroniNode> {
  const members = await patroniMembers();
  const leader = members.find((m) => m.role === 'leader')?.name;
  if (!leader) throw new Error('[engines] switchover: no leader');
  const target =
    candidate ??
    members.find((m) => m.role === 'sync_standby')?.name ??
    members.find((m) => m.role !== 'leader' && m.state !== 'stopped')?.name;
  if (!target) throw new Error('[engines] switchover: no candidate');
  const response = await fetch(`http://127.0.0.1:${restPort(leader)}/switchover`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ leader, candidate: target }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`[engines] switchover: ${response.status} ${await response.text()}`);
  await waitForPrimary(target);
  await waitForHealthy();
  return target;
}

/** The postmaster pid of a node (its data folder's postmaster.pid: Patroni starts it in its own session). */
export function postmasterPid(dir: string, node: PatroniNode): number | undefined {
  const file = join(dir, node, 'data', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * `kill -9` of the primary's postmaster; resolves with the node killed. Patroni fails over to the
 * sync standby (wait for `waitForHealthy` first: with no sync standby, Patroni restarts it in place).
 */
export async function patroniKillPrimary(dir: string = engineDir('patroni')): Promise<PatroniNode> {
  const primary = await patroniPrimary();
  if (!primary) throw new Error('[engines] kill: no primary');
  const pid = postmasterPid(dir, primary);
  if (!isAlive(pid)) throw new Error(`[engines] kill: ${primary} has no running postmaster`);
  process.kill(pid!, 'SIGKILL');
  return primary;
}

/** Resolves with the node Patroni promoted once `old` stopped being the primary. */
export async function waitForNewPrimary(old: PatroniNode, timeoutMs = 60_000): Promise<PatroniNode> {
  let promoted: PatroniNode | undefined;
  await waitForEngine(
    async () => {
      const primary = await patroniPrimary();
      promoted = primary && primary !== old ? primary : undefined;
      return promoted !== undefined;
    },
    `a new primary after ${old}`,
    { timeoutMs },
  );
  await waitForPrimary(promoted);
  return promoted!;
}

/** Resolves once the read-write port reaches a primary (`expected` when given) that takes writes. */
export async function waitForPrimary(expected?: PatroniNode, timeoutMs = 60_000): Promise<void> {
  await waitForEngine(
    async () => {
      if (expected && (await patroniPrimary()) !== expected) return false;
      const rows = await patroniQuery(patroniUrls('postgres').readWrite, 'SELECT pg_is_in_recovery() AS r');
      return rows[0]?.r === false;
    },
    `a primary${expected ? ` (${expected})` : ''} on ${PATRONI_PORTS.readWrite}`,
    { timeoutMs },
  );
}

export async function patroniQuery<Row = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

const PROCESSES = ['etcd', ...PATRONI_NODES, 'haproxy'];

export const patroni: Engine = {
  name: 'patroni',
  packages: ['patroni', 'etcd-server', 'haproxy', 'postgresql-15'],
  requires: ['/usr/bin/patroni', '/usr/bin/etcd', '/usr/sbin/haproxy', `${BIN_DIR}/postgres`],
  ports: PATRONI_PORTS,

  async start(dir) {
    const logs = () => logTail(dir, PROCESSES);
    // PostgreSQL refuses to run as root: the nodes (and etcd, in the same folder) run as postgres.
    const user = isRoot() ? 'postgres' : undefined;
    const own = (path: string) => {
      mkdirSync(path, { recursive: true, mode: 0o700 });
      if (user) chownSync(path, ...postgresIds());
    };
    own(dir);
    const peer = `http://127.0.0.1:${PATRONI_PORTS.etcdPeer}`;
    const client = `http://127.0.0.1:${PATRONI_PORTS.etcdClient}`;
    spawnProcess(
      dir,
      'etcd',
      '/usr/bin/etcd',
      [
        ...['--name', 'framedesk', '--data-dir', join(dir, 'etcd')],
        ...['--listen-client-urls', client, '--advertise-client-urls', client],
        ...['--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer],
        ...['--initial-cluster', `framedesk=${peer}`, '--initial-cluster-state', 'new'],
      ],
      { user },
    );
    await waitForEngine(() => portOpen(PATRONI_PORTS.etcdClient), 'etcd', { logs });
    for (const node of PATRONI_NODES) {
      own(join(dir, node));
      const config = join(dir, `${node}.yml`);
      writeFileSync(config, nodeConfig(dir, node));
      if (user) chownSync(config, ...postgresIds());
      spawnProcess(dir, node, '/usr/bin/patroni', [config], { user, env: { HOME: join(dir, node) } });
    }
    writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig());
    spawnProcess(dir, 'haproxy', '/usr/sbin/haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')]);
    await waitForHealthy(dir, 120_000);
    await waitForPrimary();
    const admin = patroniUrls('postgres').readWrite;
    const exists = await patroniQuery(admin, 'SELECT 1 FROM pg_database WHERE datname = $1', [PATRONI_DATABASE]);
    if (exists.length === 0) await patroniQuery(admin, `CREATE DATABASE ${PATRONI_DATABASE}`);
    await waitForEngine(
      async () => (await patroniQuery(patroniUrls().readOnly, 'SELECT pg_is_in_recovery() AS r'))[0]?.r === true,
      `a replica on ${PATRONI_PORTS.readOnly}`,
      { logs },
    );
  },

  async ready(dir) {
    if (!PROCESSES.every((name) => isAlive(processPid(dir, name)))) return false;
    try {
      if (!(await clusterHealthy(dir))) return false;
      const rows = await patroniQuery(patroniUrls().readWrite, 'SELECT pg_is_in_recovery() AS r');
      return rows[0]?.r === false;
    } catch {
      return false;
    }
  },

  env() {
    const urls = patroniUrls();
    return { DATABASE_URL: urls.readWrite, DATABASE_READ_URL: urls.readOnly };
  },
};

function postgresIds(): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('[engines] no postgres user (install postgresql-15)');
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}

export interface ClusterDatabase {
  readonly name: string;
  /** Through HAProxy's read-write port: the primary, whichever node it is. */
  readonly url: string;
  /** Through HAProxy's read-only port: a streaming replica. */
  readonly readUrl: string;
  drop(): Promise<void>;
}

/**
 * A migrated database of a test file's own on the cluster: created on the primary through the
 * read-write port, every migration applied there as `prisma migrate deploy` would; it replicates.
 * (`createTestDatabase` clones a template on the system PostgreSQL; this is its cluster twin.)
 */
export async function createClusterDatabase(): Promise<ClusterDatabase> {
  const name = `fd_ha_${randomBytes(6).toString('hex')}`;
  const admin = patroniUrls('postgres').readWrite;
  await patroniQuery(admin, `CREATE DATABASE ${name}`);
  const urls = patroniUrls(name);
  const client = new pg.Client({ connectionString: urls.readWrite });
  await client.connect();
  try {
    const dir = resolve(import.meta.dirname, '../../../../prisma/migrations');
    const names = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    for (const migration of names) await client.query(readFileSync(join(dir, migration, 'migration.sql'), 'utf8'));
  } finally {
    await client.end();
  }
  return {
    name,
    url: urls.readWrite,
    readUrl: urls.readOnly,
    drop: async () => void (await patroniQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}
