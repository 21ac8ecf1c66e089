import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Engine,
  isAlive,
  killProcess,
  logTail,
  portOpen,
  processPid,
  runCommand,
  spawnProcess,
  waitForEngine,
} from './engine';

/**
 * Ceph's RADOS Gateway 16 (Debian 12) as a real S3 server: one mon, one OSD on BlueStore over a
 * sparse file, and radosgw's beast frontend, all under the engine's folder (docs/operations.md,
 * "Ports"). Single-host settings (pool size 1, no mgr, cephx off on loopback); the S3 user and its
 * fixed keys are made by `start`. Ceph's default ports (3300, 6789) are never used.
 */
export const RGW_PORTS = {
  /** ceph-mon, msgr v2 only. */
  mon: 26789,
  /** The OSD's (and any daemon's) own listening ports are taken from this range. */
  daemonsFrom: 26800,
  daemonsTo: 26899,
  /** radosgw (S3), the shared gateway every test file uses. */
  s3: 27480,
  /** A second gateway over the same cluster for drills that kill one (`startGateway`). */
  drillS3: 27481,
} as const;

export const RGW_ACCESS_KEY = 'FRAMEDESKRGWTESTKEY0';
export const RGW_SECRET_KEY = 'framedesk-rgw-test-secret-not-for-production';
const S3_USER = 'framedesk';

const cephConf = (dir: string, fsid: string) => `[global]
fsid = ${fsid}
mon_host = v2:127.0.0.1:${RGW_PORTS.mon}
public_addr = 127.0.0.1
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc
ms_client_mode = crc
ms_bind_msgr1 = false
ms_bind_port_min = ${RGW_PORTS.daemonsFrom}
ms_bind_port_max = ${RGW_PORTS.daemonsTo}
run_dir = ${dir}/run
admin_socket = ${dir}/run/$name.asok
log_file = ${dir}/$name.ceph.log
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
paxos_propose_interval = 0.1
mon_data_avail_warn = 2
mon_data_avail_crit = 1
[mon]
mon_data = ${dir}/mon
[osd]
osd_data = ${dir}/osd
osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = 4294967296
bluestore_fsck_on_mkfs = false
bluestore_fsck_on_mount = false
osd_memory_target = 939524096
[client]
rgw_data = ${dir}/rgw
rgw_enable_usage_log = false
`;

const conf = (dir: string) => join(dir, 'ceph.conf');
const gatewayName = (port: number) => (port === RGW_PORTS.s3 ? 'radosgw' : `radosgw-${port}`);

/** True when a gateway answers S3 (an anonymous ListBuckets) on `port`. */
async function gatewayServes(port: number): Promise<boolean> {
  if (!(await portOpen(port))) return false;
  const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) });
  await response.arrayBuffer();
  return response.status === 200;
}

/**
 * Starts a radosgw on `port` over the engine's cluster (its process named `radosgw` for the shared
 * port, `radosgw-<port>` otherwise) and resolves when it serves S3.
 */
export async function startGateway(dir: string, port: number = RGW_PORTS.s3): Promise<void> {
  const name = gatewayName(port);
  if (isAlive(processPid(dir, name)) && (await gatewayServes(port).catch(() => false))) return;
  spawnProcess(dir, name, 'radosgw', [
    '-c',
    conf(dir),
    '-n',
    `client.${name}`,
    '-d',
    `--rgw_frontends=beast endpoint=127.0.0.1:${port}`,
  ]);
  await waitForEngine(() => gatewayServes(port), `radosgw on ${port}`, { logs: () => logTail(dir, [name]) });
}

/**
 * Kills a gateway (SIGKILL, as a crash) and keeps the cluster from waiting on it: its address is
 * blocklisted, else bucket creation and deletion stall ~25–30 s until the OSD times out the dead
 * instance's watches (REFERENCE.md).
 */
export function killGateway(dir: string, port: number = RGW_PORTS.s3): void {
  const name = gatewayName(port);
  // Its RADOS clients' addresses (127.0.0.1:0/<nonce>), from the mon's sessions, while it lives.
  const sessions = JSON.parse(runCommand('ceph', ['-c', conf(dir), 'tell', 'mon.a', 'sessions'])) as {
    entity_name?: string;
    addrs?: { addrvec?: { addr: string; nonce: number }[] };
  }[];
  const addresses = sessions
    .filter((session) => session.entity_name === `client.${name}`)
    .flatMap((session) => session.addrs?.addrvec ?? [])
    .map(({ addr, nonce }) => `${addr}/${nonce}`);
  killProcess(dir, name, 'SIGKILL');
  for (const address of new Set(addresses))
    runCommand('ceph', ['-c', conf(dir), 'osd', 'blocklist', 'add', address], { timeoutMs: 20_000 });
}

/** Kills the gateway on `port` and starts it again: the drills' radosgw restart. */
export async function restartGateway(dir: string, port: number = RGW_PORTS.s3): Promise<void> {
  killGateway(dir, port);
  await startGateway(dir, port);
}

async function bootstrap(dir: string): Promise<void> {
  const fsid = randomUUID();
  for (const sub of ['run', 'mon', 'osd', 'rgw']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(conf(dir), cephConf(dir, fsid));
  const c = ['-c', conf(dir)];
  runCommand('monmaptool', [
    '--create',
    '--addv',
    'a',
    `[v2:127.0.0.1:${RGW_PORTS.mon}]`,
    '--fsid',
    fsid,
    join(dir, 'monmap'),
  ]);
  runCommand('ceph-mon', [...c, '--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap')]);
  spawnProcess(dir, 'ceph-mon', 'ceph-mon', [...c, '-i', 'a', '-d']);
  const osdUuid = randomUUID();
  // `ceph osd new` waits for the mon to form its quorum.
  const id = runCommand('ceph', [...c, '--connect-timeout', '30', 'osd', 'new', osdUuid]).trim();
  runCommand('ceph-osd', [...c, '-i', id, '--mkfs', '--osd-uuid', osdUuid]);
  spawnProcess(dir, 'ceph-osd', 'ceph-osd', [...c, '-i', id, '-d']);
}

export const rgw: Engine & { readonly ports: typeof RGW_PORTS } = {
  name: 'rgw',
  packages: ['ceph-mon', 'ceph-osd', 'radosgw'],
  requires: ['/usr/bin/ceph-mon', '/usr/bin/ceph-osd', '/usr/bin/radosgw', '/usr/bin/radosgw-admin'],
  ports: RGW_PORTS,
  async start(dir) {
    for (const port of [RGW_PORTS.mon, RGW_PORTS.s3])
      if (await portOpen(port)) throw new Error(`[engines] rgw: port ${port} is taken (another rgw engine folder?)`);
    await bootstrap(dir);
    // The gateway creates its pools once the OSD is up; the user is made meanwhile (it waits too).
    const gateway = startGateway(dir);
    runCommand(
      'radosgw-admin',
      [
        '-c',
        conf(dir),
        'user',
        'create',
        '--uid',
        S3_USER,
        '--display-name',
        'Framedesk tests',
        '--access-key',
        RGW_ACCESS_KEY,
        '--secret-key',
        RGW_SECRET_KEY,
      ],
      { timeoutMs: 120_000 },
    );
    await gateway;
  },
  async ready(dir) {
    return (
      existsSync(conf(dir)) &&
      isAlive(processPid(dir, 'ceph-osd')) &&
      (await gatewayServes(RGW_PORTS.s3).catch(() => false))
    );
  },
  env() {
    return {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${RGW_PORTS.s3}`,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: RGW_ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: RGW_SECRET_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    };
  },
};
