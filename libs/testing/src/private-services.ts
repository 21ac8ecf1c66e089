import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from './stack';

// Fault tests stop and restart these; the machine's shared PostgreSQL and Redis are never touched.

const workspaceRoot = resolve(import.meta.dirname, '../../..');
const PG_BIN = '/usr/lib/postgresql/15/bin';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Processes to kill if the test runner exits without reaching its afterAll. */
const leftovers = new Set<() => void>();
let exitHookInstalled = false;
function onExit(cleanup: () => void): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => leftovers.forEach((fn) => fn()));
  }
  leftovers.add(cleanup);
  return () => leftovers.delete(cleanup);
}

/** Resolves once something answers `PING` with `+PONG` on `port`. */
async function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolveAnswer(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  isRunning(): boolean;
  /** Kills the server (SIGKILL by default: an outage, with every key lost as nothing is persisted). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A throw-away `redis-server` on a free port: no persistence, stopped and started at will. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fd-redis-'));
  const binary = execFileSync('sh', ['-c', 'command -v redis-server']).toString().trim();
  let child: ChildProcess | undefined;
  const unregister = onExit(() => child?.kill('SIGKILL'));

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    child = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--loglevel',
        'warning',
      ],
      {
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 10_000;
    while (!(await redisAnswers(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`private redis on ${port} did not start`);
      await sleep(50);
    }
  };
  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill(signal);
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    isRunning: () => !!child && child.exitCode === null && child.signalCode === null,
    stop,
    start,
    async close() {
      await stop();
      unregister();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function migrations(): string[] {
  const dir = join(workspaceRoot, 'prisma/migrations');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => readFileSync(join(dir, name, 'migration.sql'), 'utf8'));
}

export interface PrivatePostgres {
  readonly port: number;
  /** The `postgres` database of the cluster. */
  readonly adminUrl: string;
  /** A new database with every committed migration applied; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** `immediate` is a crash (recovery on the next start); `fast` a clean shutdown. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A throw-away PostgreSQL 15 cluster in a temp directory, on a free port. initdb refuses root, so
 * as root the cluster belongs to the `postgres` user and its commands run through runuser.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fd-pg-'));
  const data = join(dir, 'data');
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = root
      ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, command), ...args]]
      : [join(PG_BIN, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0)
      throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`);
  };
  // fsync=off only saves disk flushes: a process crash (stop -m immediate) keeps what the OS has.
  // synchronous_commit stays on, or a crash would lose commits already acknowledged.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let running = false;
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    if (!running) return;
    run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    running = false;
  };
  const start = async () => {
    if (running) return;
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    running = true;
  };
  const unregister = onExit(() => {
    if (running)
      spawnSync(root ? 'runuser' : join(PG_BIN, 'pg_ctl'), [
        ...(root ? ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl')] : []),
        '-D',
        data,
        '-m',
        'immediate',
        'stop',
      ]);
    rmSync(dir, { recursive: true, force: true });
  });

  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  await start();
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  let counter = 0;

  return {
    port,
    adminUrl,
    async createDatabase(name = `fd_private_${++counter}`) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const url = `postgresql://postgres@127.0.0.1:${port}/${name}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const sql of migrations()) await client.query(sql);
      } finally {
        await client.end();
      }
      return url;
    },
    stop,
    start,
    async close() {
      await stop('immediate').catch(() => undefined);
      unregister();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** How many Redis keys start with `prefix`, hash-tagged as the settings do (SCAN, never KEYS). */
export async function countRedisKeys(url: string, prefix: string): Promise<number> {
  const tagged = prefix.startsWith('{') ? prefix : `{${prefix}}`;
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    let count = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${tagged}*`, 'COUNT', 1000);
      count += keys.length;
      cursor = next;
    } while (cursor !== '0');
    return count;
  } finally {
    redis.disconnect();
  }
}
