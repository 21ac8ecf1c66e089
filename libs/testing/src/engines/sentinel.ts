import { writeFileSync } from 'node:fs';
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
 * Redis under Sentinel (docs/operations.md "Redis with Sentinel"): three Redis servers (one primary,
 * two replicas) and three Sentinels, on fixed ports that clash neither with the system Redis (6379)
 * nor with Sentinel's default (26379). Settings are the production shape (noeviction, AOF everysec,
 * min-replicas-to-write 1) with test-fast detection: a primary is "down" after 1.5 s.
 */
export const SENTINEL_MASTER = 'framedesk';
export const SENTINEL_REDIS_PORTS = [26380, 26381, 26382] as const;
export const SENTINEL_PORTS = [26390, 26391, 26392] as const;
const DOWN_AFTER_MS = 1_500;
const FAILOVER_TIMEOUT_MS = 5_000;

const redisName = (port: number) => `redis-${port}`;
const sentinelName = (port: number) => `sentinel-${port}`;
export const sentinelProcessNames = (): string[] => [
  ...SENTINEL_REDIS_PORTS.map(redisName),
  ...SENTINEL_PORTS.map(sentinelName),
];

const cli = (port: number, ...args: string[]) =>
  runCommand('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeoutMs: 5_000 }).trim();

function redisConfig(dir: string, port: number, primary: number | null): string {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'protected-mode no',
    `dir ${dir}`,
    `dbfilename dump-${port}.rdb`,
    'appendonly yes',
    `appenddirname aof-${port}`,
    'appendfsync everysec',
    'maxmemory-policy noeviction',
    'min-replicas-to-write 1',
    'min-replicas-max-lag 10',
    'save ""',
    ...(primary === null ? [] : [`replicaof 127.0.0.1 ${primary}`]),
    '',
  ].join('\n');
}

function sentinelConfig(dir: string, port: number, primary: number): string {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'protected-mode no',
    `dir ${dir}`,
    `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${primary} 2`,
    `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${DOWN_AFTER_MS}`,
    `sentinel failover-timeout ${SENTINEL_MASTER} ${FAILOVER_TIMEOUT_MS}`,
    `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
    '',
  ].join('\n');
}

/** The primary's port as Sentinel `port` sees it. */
export function sentinelPrimaryPort(port: number = SENTINEL_PORTS[0]): number {
  const [, primary] = cli(port, 'SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER).split('\n');
  return Number(primary);
}

/** Starts a Redis node of the engine again (after a drill killed it): Sentinel makes it a replica. */
export function restartSentinelRedis(dir: string, port: number): void {
  if (isAlive(processPid(dir, redisName(port)))) return;
  spawnProcess(dir, redisName(port), 'redis-server', [join(dir, `${redisName(port)}.conf`)]);
}

/** Kills (SIGKILL) the Redis node on `port`: a primary lost with whatever it had not replicated. */
export function killSentinelRedis(dir: string, port: number): boolean {
  return killProcess(dir, redisName(port), 'SIGKILL');
}

const role = (port: number): string => {
  try {
    return cli(port, 'ROLE').split('\n')[0] ?? '';
  } catch {
    return '';
  }
};

export const sentinel: Engine = {
  name: 'sentinel',
  packages: ['redis-server', 'redis-sentinel'],
  requires: ['/usr/bin/redis-server', '/usr/bin/redis-sentinel'],
  ports: {
    ...Object.fromEntries(SENTINEL_REDIS_PORTS.map((port, i) => [`redis${i}`, port])),
    ...Object.fromEntries(SENTINEL_PORTS.map((port, i) => [`sentinel${i}`, port])),
  },
  async start(dir) {
    // Fixed ports: another Sentinel engine (another folder) would answer in this one's place.
    const taken = [];
    for (const port of [...SENTINEL_REDIS_PORTS, ...SENTINEL_PORTS]) if (await portOpen(port)) taken.push(port);
    if (taken.length > 0)
      throw new Error(
        `[engines] sentinel: ports ${taken.join(', ')} are taken (another sentinel engine? npm run engines -- stop sentinel)`,
      );
    const [primary] = SENTINEL_REDIS_PORTS;
    for (const port of SENTINEL_REDIS_PORTS) {
      const file = join(dir, `${redisName(port)}.conf`);
      writeFileSync(file, redisConfig(dir, port, port === primary ? null : primary));
      spawnProcess(dir, redisName(port), 'redis-server', [file]);
    }
    const logs = () => logTail(dir, sentinelProcessNames());
    // Replicas linked first: with min-replicas-to-write 1 the primary refuses writes until then.
    await waitForEngine(
      () =>
        SENTINEL_REDIS_PORTS.slice(1).every((port) =>
          cli(port, 'INFO', 'replication').includes('master_link_status:up'),
        ),
      'sentinel: replicas in sync',
      { logs },
    );
    for (const port of SENTINEL_PORTS) {
      // Sentinel rewrites its config file (known replicas, epochs): it must be its own, writable.
      const file = join(dir, `${sentinelName(port)}.conf`);
      writeFileSync(file, sentinelConfig(dir, port, primary));
      spawnProcess(dir, sentinelName(port), 'redis-server', [file, '--sentinel']);
    }
    await waitForEngine(() => this.ready(dir), 'sentinel: three Sentinels agree on the primary', { logs });
  },
  async ready(dir) {
    if (!sentinelProcessNames().every((name) => isAlive(processPid(dir, name)))) return false;
    try {
      const primaries = SENTINEL_PORTS.map((port) => sentinelPrimaryPort(port));
      const primary = primaries[0]!;
      if (!primaries.every((port) => port === primary) || role(primary) !== 'master') return false;
      // Every Sentinel sees the other two (quorum for a failover) and both replicas.
      return SENTINEL_PORTS.every((port) => {
        const info = cli(port, 'SENTINEL', 'master', SENTINEL_MASTER).split('\n');
        const field = (name: string) => Number(info[info.indexOf(name) + 1]);
        return field('num-other-sentinels') === 2 && field('num-slaves') === 2;
      });
    } catch {
      return false;
    }
  },
  env() {
    return {
      REDIS_SENTINELS: SENTINEL_PORTS.map((port) => `127.0.0.1:${port}`).join(','),
      REDIS_SENTINEL_NAME: SENTINEL_MASTER,
    };
  },
};
