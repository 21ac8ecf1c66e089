import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One way to start and stop the engines organisations run past one machine (Patroni PostgreSQL,
 * Redis under Sentinel, Ceph RGW), for development and tests. Each engine is a module of this
 * folder implementing `Engine`; `npm run engines -- start|stop|status|env <name>` and the tests
 * (`useEngine`) both go through `startEngine`/`stopEngine` here, never their own copies.
 *
 * Everything an engine runs lives under `engineDir(name)` (a temp folder): its data, configs, logs
 * (`<process>.log`) and pid files (`<process>.pid`). Its processes are detached, so a drill can
 * kill one (`killProcess`) and the engine's own supervisor (Patroni, Sentinel) is what reacts.
 */
export interface Engine {
  readonly name: string;
  /** Debian packages it needs, installed with apt on a fresh machine (root) as ffmpeg is. */
  readonly packages: readonly string[];
  /** Files whose presence says the packages are installed. */
  readonly requires: readonly string[];
  /** The fixed local ports it listens on (documented in docs/operations.md; none clash with the system services). */
  readonly ports: Readonly<Record<string, number>>;
  /** Starts every process under `dir` and resolves when the engine serves. */
  start(dir: string): Promise<void>;
  /** True when the engine serves (used to reuse an engine already started). */
  ready(dir: string): Promise<boolean>;
  /** The environment a Framedesk process uses to talk to it (DATABASE_URL, REDIS_SENTINELS, S3_…). */
  env(dir: string): Record<string, string>;
}

export const engineRoot = (): string => process.env['FRAMEDESK_ENGINES_DIR'] ?? join(tmpdir(), 'framedesk-engines');
export const engineDir = (name: string): string => join(engineRoot(), name);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const isRoot = (): boolean => process.getuid?.() === 0;

/**
 * Installs the engine's Debian packages when a required file is missing, as `npm test` installs
 * ffmpeg: only as root with apt. A package's own service is kept from starting (policy-rc.d):
 * the engine's processes are ours, on our ports, under our folder.
 */
export function ensurePackages(engine: Pick<Engine, 'name' | 'packages' | 'requires'>): void {
  const missing = engine.requires.filter((file) => !existsSync(file));
  if (missing.length === 0) return;
  const hint = `apt-get install ${engine.packages.join(' ')}`;
  if (!isRoot() || spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0)
    throw new Error(`[engines] ${engine.name} needs ${missing.join(', ')}: install it (Debian: ${hint}) and run again`);
  console.log(`[engines] installing ${engine.packages.join(', ')} with apt for ${engine.name}`);
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    const result = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...engine.packages], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    });
    if (result.status !== 0) throw new Error(`[engines] ${hint} failed (exit ${result.status})`);
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}

export interface SpawnOptions {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /** Run as this user (setpriv: unlike runuser/su, it does not SIGKILL its child on SIGTERM). */
  readonly user?: string;
}

/**
 * Starts `command` detached, its output in `<dir>/<name>.log` and its pid in `<dir>/<name>.pid`.
 * The environment is only what is given plus PATH/HOME/LANG: a caller's PGPASSWORD, PATRONI_* or
 * REDIS_URL never leaks into an engine.
 */
export function spawnProcess(
  dir: string,
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions = {},
): number {
  mkdirSync(dir, { recursive: true });
  const log = openSync(join(dir, `${name}.log`), 'a');
  const env = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    LANG: 'C.UTF-8',
    HOME: options.user ? `/var/lib/${options.user}` : (process.env['HOME'] ?? '/root'),
    ...options.env,
  };
  const [file, argv] = options.user
    ? ['setpriv', ['--reuid', options.user, '--regid', options.user, '--init-groups', '--', command, ...args]]
    : [command, args];
  const child = spawn(file, argv, { cwd: options.cwd ?? dir, env, detached: true, stdio: ['ignore', log, log] });
  child.unref();
  if (child.pid === undefined) throw new Error(`[engines] could not start ${command}`);
  writeFileSync(join(dir, `${name}.pid`), String(child.pid));
  return child.pid;
}

export function processPid(dir: string, name: string): number | undefined {
  const file = join(dir, `${name}.pid`);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to the process recorded as `name` (and, with `group`, to its whole process group). */
export function killProcess(dir: string, name: string, signal: NodeJS.Signals = 'SIGKILL', group = false): boolean {
  const pid = processPid(dir, name);
  if (!isAlive(pid)) return false;
  try {
    process.kill(group ? -pid! : pid!, signal);
    return true;
  } catch {
    return false;
  }
}

/** Waits for every recorded pid of the engine to exit (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopProcesses(dir: string, names: string[], graceMs = 10_000): Promise<void> {
  for (const name of names) killProcess(dir, name, 'SIGTERM', true);
  const deadline = Date.now() + graceMs;
  while (names.some((name) => isAlive(processPid(dir, name))) && Date.now() < deadline) await sleep(100);
  for (const name of names) killProcess(dir, name, 'SIGKILL', true);
  while (names.some((name) => isAlive(processPid(dir, name)))) await sleep(50);
}

/** True when something accepts a TCP connection on 127.0.0.1:`port`. */
export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

/** The last lines of the engine's logs, for an error that says why it did not come up. */
export function logTail(dir: string, names: string[], lines = 15): string {
  return names
    .map((name) => {
      const file = join(dir, `${name}.log`);
      if (!existsSync(file)) return `--- ${name}: no log`;
      return `--- ${name}.log\n${readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')}`;
    })
    .join('\n');
}

/** Polls `check` until it is true; on timeout throws naming `what` (and the logs' tails). */
export async function waitForEngine(
  check: () => Promise<boolean> | boolean,
  what: string,
  { timeoutMs = 60_000, intervalMs = 200, logs }: { timeoutMs?: number; intervalMs?: number; logs?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`[engines] ${what}: not within ${timeoutMs} ms\n${logs?.() ?? ''}`);
    await sleep(intervalMs);
  }
}

/**
 * Runs `fn` holding a lock shared by every process of this machine (a directory made atomically,
 * with the holder's pid in it): two vitest workers must not both start one engine, or run apt at once.
 * A lock whose holder died is taken over.
 */
export async function withLock<T>(name: string, fn: () => Promise<T>, timeoutMs = 600_000): Promise<T> {
  const dir = join(engineRoot(), `${name}.lock`);
  mkdirSync(engineRoot(), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      break;
    } catch {
      const holder = lockHolder(dir);
      // No pid yet: the holder is between mkdir and writeFileSync (or died there, long ago).
      const dead = holder === undefined ? Date.now() - lockAge(dir) > 10_000 : !isAlive(holder);
      if (dead) rmSync(dir, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`[engines] lock ${name} held too long by ${lockHolder(dir)}`);
      else await sleep(200);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function lockAge(dir: string): number {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

function lockHolder(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a command to completion; throws with its output when it fails. */
export function runCommand(
  command: string,
  args: string[],
  options: SpawnOptions & { timeoutMs?: number } = {},
): string {
  const [file, argv] = options.user
    ? ['setpriv', ['--reuid', options.user, '--regid', options.user, '--init-groups', '--', command, ...args]]
    : [command, args];
  const result = spawnSync(file, argv, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
  });
  if (result.status !== 0)
    throw new Error(
      `[engines] ${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`,
    );
  return result.stdout;
}
