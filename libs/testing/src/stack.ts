import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { threadId } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { createTestDatabase, type TestDatabase } from './database';
import { createTestRedisPrefix, testRedisUrl } from './redis';

const workspaceRoot = resolve(import.meta.dirname, '../../..');

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** A free local port held open, as another program on it would, until `release()`. */
export async function occupyPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface RunningProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (JSON log lines). */
  output(): string;
  /** SIGTERM, or SIGKILL when `signal` says so; resolves when it has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * What each app process runs with, as in production (README "Running in production",
 * docs/performance.md "Memory"). glibc reads its settings when the process starts, so they are
 * set here, not in code. Every app: two malloc arenas instead of one per thread that ever
 * allocated (libuv's pool, libvips, Prisma). The API also maps blocks of 64 KiB and more (a
 * socket read's buffer) on their own, so a freed one goes back to the kernel instead of
 * fragmenting the heap, and caps V8's semi-spaces at 2 MiB (16 by default): together about
 * 25 MB less at the memory burst's peak. Not the worker: libvips allocates many such blocks per
 * image, and mapping each one afresh costs CPU.
 */
export const APP_PROCESS_ENV: Record<'api' | 'worker' | 'cli', Readonly<Record<string, string>>> = {
  api: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536', NODE_OPTIONS: '--max-semi-space-size=2' },
  worker: { MALLOC_ARENA_MAX: '2' },
  cli: { MALLOC_ARENA_MAX: '2' },
};

type AppName = 'api' | 'worker' | 'cli';

function esbuildOptions(name: AppName, outdir: string) {
  return {
    entryPoints: { main: join(workspaceRoot, `apps/${name}/src/main.ts`) },
    outdir,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    target: 'node20',
    packages: 'external' as const,
    tsconfig: join(workspaceRoot, 'tsconfig.base.json'),
    // Bundled ESM still meets CommonJS packages that call require().
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning' as const,
  };
}

// Inside the workspace, so the bundles resolve their npm packages from its node_modules. One
// directory per test process (vitest runs files in several), inside the vitest run's own
// (tools/vitest.global-setup.ts removes it when the run ends); a tool outside vitest (the bench,
// tools/capacity) removes its own when it exits.
// eslint-disable-next-line no-restricted-properties -- set by the test run, not a product setting.
const runDir = process.env['FRAMEDESK_TEST_APPS_DIR'];
const bundleRoot = join(
  runDir ?? join(workspaceRoot, 'node_modules/.cache/framedesk-test-apps', String(process.pid)),
  `${process.pid}-${threadId}`,
);
const bundles = new Map<AppName, string>();

/**
 * This test process's bundle of an app, built on first use and reused by every process it starts:
 * `apps/<name>/src/main.ts` with the workspace libs inlined and npm packages left external, split
 * as tools/build.mjs splits it, as a production build runs it (no TypeScript transpiler in the
 * process; tsx held about 50 MB of an API's resident memory). Building takes a fraction of a
 * second once; starting each process through tsx instead cost over a second of CPU (it compiles
 * the app's files as they load), and the suite starts a few hundred.
 */
export function appBundle(name: AppName): string {
  const known = bundles.get(name);
  if (known) return known;
  if (bundles.size === 0 && !runDir) process.once('exit', () => rmSync(bundleRoot, { recursive: true, force: true }));
  const outdir = join(bundleRoot, name);
  buildSync(esbuildOptions(name, outdir));
  const entry = join(outdir, 'main.mjs');
  bundles.set(name, entry);
  return entry;
}

/**
 * Runs one of our apps (this test process's bundle of `apps/<name>/src/main.ts`, or a built
 * `entry` such as dist/<name>/main.mjs) as a real process with `env`.
 */
export function startApp(
  name: AppName,
  env: Record<string, string>,
  args: string[] = [],
  options: { entry?: string } = {},
): RunningProcess {
  const child = spawn(process.execPath, [options.entry ?? appBundle(name), ...args], {
    cwd: workspaceRoot,
    env: {
      // eslint-disable-next-line no-restricted-properties -- the child inherits PATH and friends.
      ...process.env,
      ...APP_PROCESS_ENV[name],
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    name,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface AppRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one of our apps to completion (the admin CLI, or an app expected to refuse to start). */
export function runApp(
  name: AppName,
  args: string[],
  env: Record<string, string>,
  stdin = '',
  timeoutMs = 60_000,
): Promise<AppRun> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [appBundle(name), ...args], {
      cwd: workspaceRoot,
      // eslint-disable-next-line no-restricted-properties -- the child inherits PATH and friends.
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(stdin);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** Polls `probe` every 200 ms until it answers something truthy (returned), or fails after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function waitForHttp(url: string, timeoutMs = 60_000, process?: RunningProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process && process.child.exitCode !== null) {
      throw new Error(
        `${process.name} exited with ${process.child.exitCode} before ${url} answered:\n${process.output()}`,
      );
    }
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms${process ? `:\n${process.output()}` : ''}`);
}

/** Signs a reviewer in to the review API at `apiUrl`; returns the session's `Cookie` header. */
export async function reviewerCookie(apiUrl: string, email: string, password: string): Promise<string> {
  const login = await fetch(`${apiUrl}/review/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 201) throw new Error(`sign-in of ${email} answered ${login.status}: ${await login.text()}`);
  return login.headers.get('set-cookie')!.split(';')[0]!;
}

export interface Stack {
  readonly apiUrl: string;
  readonly env: Record<string, string>;
  readonly database: TestDatabase;
  /** Holds `storage` (STORAGE_FS_ROOT) and the project configuration. */
  readonly storageRoot: string;
  readonly api: RunningProcess;
  /** Worker processes started so far. */
  readonly workers: RunningProcess[];
  startWorker(extraEnv?: Record<string, string>): Promise<RunningProcess>;
  /** Runs the admin CLI against this stack; resolves with its stdout. */
  cli(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Creates an agent allowed on `channels` and returns its API key. */
  createAgent(slug: string, channels: string[]): Promise<string>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Start this many workers (default 1). */
  readonly workers?: number;
  /** Extra environment for every process. */
  readonly env?: Record<string, string>;
  /** Changes to config/project.example.json for this stack (api.base_url is set for you). */
  readonly config?: (config: Record<string, any>) => void; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Run on this database (a restored one) instead of a new one; dropped by `stop()` all the same. */
  readonly database?: TestDatabase;
  /** Run on this directory (its `storage` inside is the storage root) instead of a new one; removed by `stop()`. */
  readonly storageRoot?: string;
}

/** config/project.example.json with `api.base_url` pointing at `apiUrl`, written to `dir`. */
export async function writeTestConfig(dir: string, apiUrl: string, change?: StackOptions['config']): Promise<string> {
  const config = JSON.parse(await readFile(join(workspaceRoot, 'config/project.example.json'), 'utf8'));
  config.api.base_url = apiUrl;
  change?.(config);
  const file = join(dir, 'project.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/**
 * The real product on this machine: an API process and worker processes on a database, Redis
 * prefix and storage directory of their own. What the browser, client and fault tests drive.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const database = options.database ?? (await createTestDatabase());
  const redis = createTestRedisPrefix();
  const storageRoot = options.storageRoot ?? (await mkdtemp(join(tmpdir(), 'framedesk-stack-')));
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const configFile = await writeTestConfig(storageRoot, apiUrl, options.config);
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: redis.prefix,
    STORAGE_FS_ROOT: join(storageRoot, 'storage'),
    FRAMEDESK_CONFIG: configFile,
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const api = startApp('api', env);
  const workers: RunningProcess[] = [];
  const startWorker = async (extraEnv: Record<string, string> = {}) => {
    const port = extraEnv['WORKER_HEALTH_PORT'] ? Number(extraEnv['WORKER_HEALTH_PORT']) : await freePort();
    const worker = startApp('worker', { ...env, WORKER_HEALTH_PORT: String(port), ...extraEnv });
    workers.push(worker);
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, worker);
    return worker;
  };
  const cli = (args: string[], stdin?: string) => runApp('cli', args, env, stdin);
  try {
    await waitForHttp(`${apiUrl}/healthz`, 60_000, api);
    for (let i = 0; i < (options.workers ?? 1); i++) await startWorker();
  } catch (error) {
    await Promise.all([api.stop('SIGKILL'), ...workers.map((w) => w.stop('SIGKILL'))]);
    await database.drop();
    throw error;
  }
  return {
    apiUrl,
    env,
    database,
    storageRoot,
    api,
    workers,
    startWorker,
    cli,
    async createAgent(slug, channels) {
      const result = await cli(['agent', 'create', slug, ...channels.flatMap((c) => ['--channel', c]), '--json']);
      if (result.code !== 0) throw new Error(`agent create failed: ${result.stderr}`);
      return (JSON.parse(result.stdout) as { api_key: string }).api_key;
    },
    async stop() {
      await Promise.all([api.stop(), ...workers.map((w) => w.stop())]);
      await database.drop();
      await redis.cleanup();
      await rm(storageRoot, { recursive: true, force: true });
    },
  };
}
