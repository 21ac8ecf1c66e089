import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
 * sends the read-write port to the primary and the read-only port to the replicas.
 *
 * One implementation, several instances (`PATRONI_INSTANCES`), each its own engine with its own
 * folder (`engineDir(name)`) and its own ports (the default ones plus the instance's offset;
 * docs/operations.md): the default `patroni`, which the tests that never kill anything share; a
 * `patroni-drill` the failover drill switches over and kills without pulling the primary from
 * under them; `patroni-async`, the same drill on asynchronous replication. None clash with the
 * system PostgreSQL (5432) or one another, so they can all run at once.
 *
 * `synchronous_mode` (`synchronousMode`): a commit is acknowledged only once a standby has it,
 * so a failover loses no acknowledged write. Off, a failover can lose the last acknowledged ones.
 */
export interface PatroniInstance {
  /** The engine's name (`npm run engines -- start <name>`, `startEngine(name)`) and folder. */
  readonly name: 'patroni' | 'patroni-drill' | 'patroni-async';
  /** Added to every one of the default instance's ports. */
  readonly portOffset: number;
  readonly synchronousMode: boolean;
}

export const PATRONI_INSTANCES = {
  default: { name: 'patroni', portOffset: 0, synchronousMode: true },
  drill: { name: 'patroni-drill', portOffset: 100, synchronousMode: true },
  async: { name: 'patroni-async', portOffset: 200, synchronousMode: false },
} as const satisfies Record<string, PatroniInstance>;

const DEFAULT: PatroniInstance = PATRONI_INSTANCES.default;

/** The ports of an instance: the default instance's plus its offset. */
export function patroniPorts(instance: PatroniInstance = DEFAULT) {
  const o = instance.portOffset;
  return {
    etcdClient: 23790 + o,
    etcdPeer: 23800 + o,
    node0: 25431 + o,
    node1: 25432 + o,
    node2: 25433 + o,
    rest0: 28008 + o,
    rest1: 28009 + o,
    rest2: 28010 + o,
    readWrite: 25000 + o,
    readOnly: 25001 + o,
  } as const;
}

/** The default instance's ports. */
export const PATRONI_PORTS = patroniPorts(DEFAULT);

export const PATRONI_NODES = ['node0', 'node1', 'node2'] as const;
export type PatroniNode = (typeof PATRONI_NODES)[number];

const SCOPE = 'framedesk';
const BIN_DIR = '/usr/lib/postgresql/15/bin';
const pgPort = (instance: PatroniInstance, node: PatroniNode) => patroniPorts(instance)[node];
const restPort = (instance: PatroniInstance, node: PatroniNode) =>
  patroniPorts(instance)[`rest${node.slice(-1)}` as 'rest0'];

/** The instance's folder (its data, configs, logs and pid files). */
export const patroniDir = (instance: PatroniInstance = DEFAULT): string => engineDir(instance.name);

/** The database the engine's URLs name (created on the primary at start; it replicates). */
export const PATRONI_DATABASE = 'framedesk';

export const patroniUrls = (database = PATRONI_DATABASE, instance: PatroniInstance = DEFAULT) => {
  const ports = patroniPorts(instance);
  const url = (port: number) => `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`;
  return {
    readWrite: url(ports.readWrite),
    readOnly: url(ports.readOnly),
    node: (node: PatroniNode) => url(pgPort(instance, node)),
  };
};

function nodeConfig(instance: PatroniInstance, dir: string, node: PatroniNode): string {
  const ports = patroniPorts(instance);
  const rest = `127.0.0.1:${restPort(instance, node)}`;
  const postgres = `127.0.0.1:${pgPort(instance, node)}`;
  const data = join(dir, node);
  // JSON is YAML: no YAML writer needed.
  return JSON.stringify({
    scope: SCOPE,
    namespace: '/framedesk/',
    name: node,
    restapi: { listen: rest, connect_address: rest },
    etcd3: { hosts: [`127.0.0.1:${ports.etcdClient}`] },
    bootstrap: {
      dcs: {
        // loop_wait + 2 × retry_timeout ≤ ttl (REFERENCE.md): a failover in 3–4 s.
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 4,
        // 0: a killed primary fails over instead of being restarted in place.
        primary_start_timeout: 0,
        maximum_lag_on_failover: 1_048_576,
        synchronous_mode: instance.synchronousMode,
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
      listen: postgres,
      connect_address: postgres,
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

function haproxyConfig(instance: PatroniInstance): string {
  const ports = patroniPorts(instance);
  const listen = (name: string, port: number, check: string) => [
    `listen ${name}`,
    `  bind 127.0.0.1:${port}`,
    `  option httpchk OPTIONS ${check}`,
    '  http-check expect status 200',
    // A node that stops being what the port wants loses its sessions at once (clients reconnect).
    '  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions',
    ...PATRONI_NODES.map(
      (node) =>
        `  server ${node} 127.0.0.1:${pgPort(instance, node)} maxconn 300 check port ${restPort(instance, node)}`,
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
    ...listen('read_write', ports.readWrite, '/primary'),
    ...listen('read_only', ports.readOnly, '/replica'),
    '',
  ].join('\n');
}

export interface PatroniMember {
  readonly name: PatroniNode;
  readonly role: string; // leader | sync_standby | replica
  readonly state: string;
  readonly lag?: number | string;
}

async function rest(instance: PatroniInstance, node: PatroniNode, path: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${restPort(instance, node)}${path}`, { signal: AbortSignal.timeout(2000) });
}

/** The cluster as Patroni sees it (asked of any node that answers). */
export async function patroniMembers(instance: PatroniInstance = DEFAULT): Promise<PatroniMember[]> {
  for (const node of PATRONI_NODES) {
    try {
      const response = await rest(instance, node, '/cluster');
      if (response.ok) return ((await response.json()) as { members: PatroniMember[] }).members;
    } catch {
      // ask the next one
    }
  }
  throw new Error(`[engines] no Patroni node of ${instance.name} answers`);
}

/** The node Patroni runs as primary (leader) now, if any. */
export async function patroniPrimary(instance: PatroniInstance = DEFAULT): Promise<PatroniNode | undefined> {
  const members = await patroniMembers(instance);
  return members.find((m) => m.role === 'leader' && m.state === 'running')?.name;
}

/**
 * Resolves once a primary runs with a streaming standby (a sync standby when the instance is in
 * synchronous mode: an asynchronous one never has one).
 */
export async function waitForHealthy(instance: PatroniInstance = DEFAULT, timeoutMs = 60_000): Promise<void> {
  const what = `${instance.name} (a primary and a ${instance.synchronousMode ? 'sync' : 'streaming'} standby)`;
  await waitForEngine(() => clusterHealthy(instance), what, {
    timeoutMs,
    intervalMs: 500,
    logs: () => logTail(patroniDir(instance), PROCESSES),
  });
}

async function clusterHealthy(instance: PatroniInstance): Promise<boolean> {
  const members = await patroniMembers(instance);
  const leader = members.some((m) => m.role === 'leader' && m.state === 'running');
  const standbys = members.filter((m) => m.role !== 'leader' && ['running', 'streaming'].includes(m.state));
  const sync = !instance.synchronousMode || standbys.some((m) => m.role === 'sync_standby');
  return leader && standbys.length >= 1 && sync;
}

/**
 * A planned switchover, as an operator runs it (`patronictl switchover`): to `candidate`, or to
 * the sync standby (synchronous mode requires it), or to any streaming replica. Resolves once the
 * new primary serves writes through HAProxy and the cluster is healthy again.
 */
export async function patroniSwitchover(
  instance: PatroniInstance = DEFAULT,
  candidate?: PatroniNode,
): Promise<PatroniNode> {
  const members = await patroniMembers(instance);
  const leader = members.find((m) => m.role === 'leader')?.name;
  if (!leader) throw new Error(`[engines] ${instance.name} switchover: no leader`);
  const target =
    candidate ??
    members.find((m) => m.role === 'sync_standby')?.name ??
    members.find((m) => m.role !== 'leader' && ['running', 'streaming'].includes(m.state))?.name;
  if (!target) throw new Error(`[engines] ${instance.name} switchover: no candidate`);
  const response = await fetch(`http://127.0.0.1:${restPort(instance, leader)}/switchover`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ leader, candidate: target }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`[engines] switchover: ${response.status} ${await response.text()}`);
  await waitForPrimary(instance, target);
  await waitForHealthy(instance);
  return target;
}

/** The postmaster pid of a node (its data folder's postmaster.pid: Patroni starts it in its own session). */
export function postmasterPid(instance: PatroniInstance, node: PatroniNode): number | undefined {
  const file = join(patroniDir(instance), node, 'data', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * `kill -9` of the primary's postmaster; resolves with the node killed. Patroni fails over to a
 * standby (wait for `waitForHealthy` first: with no standby to promote, Patroni restarts it in place).
 */
export async function patroniKillPrimary(instance: PatroniInstance = DEFAULT): Promise<PatroniNode> {
  const primary = await patroniPrimary(instance);
  if (!primary) throw new Error(`[engines] ${instance.name} kill: no primary`);
  const pid = postmasterPid(instance, primary);
  if (!isAlive(pid)) throw new Error(`[engines] kill: ${primary} has no running postmaster`);
  process.kill(pid!, 'SIGKILL');
  return primary;
}

/** Resolves with the node Patroni promoted once `old` stopped being the primary. */
export async function waitForNewPrimary(
  old: PatroniNode,
  instance: PatroniInstance = DEFAULT,
  timeoutMs = 60_000,
): Promise<PatroniNode> {
  let promoted: PatroniNode | undefined;
  await waitForEngine(
    async () => {
      const primary = await patroniPrimary(instance);
      promoted = primary && primary !== old ? primary : undefined;
      return promoted !== undefined;
    },
    `a new primary of ${instance.name} after ${old}`,
    { timeoutMs, logs: () => logTail(patroniDir(instance), PROCESSES) },
  );
  await waitForPrimary(instance, promoted);
  return promoted!;
}

/** Resolves once the read-write port reaches a primary (`expected` when given) that takes writes. */
export async function waitForPrimary(
  instance: PatroniInstance = DEFAULT,
  expected?: PatroniNode,
  timeoutMs = 60_000,
): Promise<void> {
  await waitForEngine(
    async () => {
      if (expected && (await patroniPrimary(instance)) !== expected) return false;
      const rows = await patroniQuery(patroniUrls('postgres', instance).readWrite, 'SELECT pg_is_in_recovery() AS r');
      return rows[0]?.r === false;
    },
    `a primary${expected ? ` (${expected})` : ''} on ${patroniPorts(instance).readWrite}`,
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

/** Starts etcd, the three Patroni nodes and HAProxy of `instance` under `dir`. */
async function spawnCluster(instance: PatroniInstance, dir: string, user: string | undefined): Promise<void> {
  const ports = patroniPorts(instance);
  const own = (path: string) => {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    if (user) chownSync(path, ...postgresIds());
  };
  own(dir);
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  const client = `http://127.0.0.1:${ports.etcdClient}`;
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
  await waitForEngine(() => portOpen(ports.etcdClient), `etcd of ${instance.name}`, {
    logs: () => logTail(dir, PROCESSES),
  });
  for (const node of PATRONI_NODES) {
    own(join(dir, node));
    const config = join(dir, `${node}.yml`);
    writeFileSync(config, nodeConfig(instance, dir, node));
    if (user) chownSync(config, ...postgresIds());
    spawnProcess(dir, node, '/usr/bin/patroni', [config], { user, env: { HOME: join(dir, node) } });
  }
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig(instance));
  spawnProcess(dir, 'haproxy', '/usr/sbin/haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')]);
}

/** The engine of one instance: `engines['patroni' | 'patroni-drill' | 'patroni-async']`. */
export function patroniEngine(instance: PatroniInstance): Engine {
  const urls = (database?: string) => patroniUrls(database, instance);
  return {
    name: instance.name,
    packages: ['patroni', 'etcd-server', 'haproxy', 'postgresql-15'],
    requires: ['/usr/bin/patroni', '/usr/bin/etcd', '/usr/sbin/haproxy', `${BIN_DIR}/postgres`],
    ports: patroniPorts(instance),

    async start(dir) {
      // PostgreSQL refuses to run as root: the nodes (and etcd, in the same folder) run as postgres.
      await spawnCluster(instance, dir, isRoot() ? 'postgres' : undefined);
      await waitForHealthy(instance, 120_000);
      await waitForPrimary(instance);
      const admin = urls('postgres').readWrite;
      const exists = await patroniQuery(admin, 'SELECT 1 FROM pg_database WHERE datname = $1', [PATRONI_DATABASE]);
      if (exists.length === 0) await patroniQuery(admin, `CREATE DATABASE ${PATRONI_DATABASE}`);
      await waitForEngine(
        async () => (await patroniQuery(urls().readOnly, 'SELECT pg_is_in_recovery() AS r'))[0]?.r === true,
        `a replica on ${patroniPorts(instance).readOnly}`,
        { logs: () => logTail(dir, PROCESSES) },
      );
    },

    async ready(dir) {
      if (!PROCESSES.every((name) => isAlive(processPid(dir, name)))) return false;
      try {
        if (!(await clusterHealthy(instance))) return false;
        const rows = await patroniQuery(urls().readWrite, 'SELECT pg_is_in_recovery() AS r');
        return rows[0]?.r === false;
      } catch {
        return false;
      }
    },

    env() {
      return { DATABASE_URL: urls().readWrite, DATABASE_READ_URL: urls().readOnly };
    },
  };
}

export const patroni = patroniEngine(PATRONI_INSTANCES.default);
export const patroniDrill = patroniEngine(PATRONI_INSTANCES.drill);
export const patroniAsync = patroniEngine(PATRONI_INSTANCES.async);

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
export async function createClusterDatabase(instance: PatroniInstance = DEFAULT): Promise<ClusterDatabase> {
  const name = `fd_ha_${randomBytes(6).toString('hex')}`;
  const admin = patroniUrls('postgres', instance).readWrite;
  await patroniQuery(admin, `CREATE DATABASE ${name}`);
  const urls = patroniUrls(name, instance);
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
