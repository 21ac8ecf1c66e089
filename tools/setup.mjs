#!/usr/bin/env node
// Brings a machine to the point where Framedesk runs: dependencies, PostgreSQL, Redis, the
// Prisma client and migrations. `npm start` and `npm test` both call it, so the two set up alike.
//
//   node tools/setup.mjs [--quiet] [deps|services|database|all]
//
// Services: DATABASE_URL / REDIS_URL when set; else a server on the default local port; else
// one started with `docker compose` (when an engine answers) or from the system's packages
// (installed with apt when running as root); else a message saying exactly what to install.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const log = (message) => quiet || console.log(`[setup] ${message}`);

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/framedesk';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

function fail(message) {
  console.error(`[setup] ${message}`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: quiet ? 'pipe' : 'inherit', ...options });
  if (result.status !== 0) {
    const output = result.stderr ? String(result.stderr) : '';
    fail(`${command} ${args.join(' ')} failed (exit ${result.status})\n${output}`);
  }
  return result;
}

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const isRoot = () => process.getuid?.() === 0;

function stamp(name, inputs) {
  const file = join(root, 'node_modules/.cache/framedesk', `${name}.stamp`);
  const hash = createHash('sha256')
    .update(inputs.map((f) => (existsSync(f) ? readFileSync(f) : '')).join('\0'))
    .digest('hex');
  return {
    fresh: existsSync(file) && readFileSync(file, 'utf8') === hash,
    save() {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, hash);
    },
  };
}

/** npm's own record of the last install (node_modules/.package-lock.json) is newer than the lockfile. */
function installedAfterLockfile() {
  const hidden = join(root, 'node_modules/.package-lock.json');
  return existsSync(hidden) && statSync(hidden).mtimeMs >= statSync(join(root, 'package-lock.json')).mtimeMs;
}

export function ensureDependencies() {
  const lock = stamp('npm-ci', [join(root, 'package-lock.json')]);
  if (existsSync(join(root, 'node_modules/.bin/tsx')) && (lock.fresh || installedAfterLockfile())) {
    if (!lock.fresh) lock.save();
    return;
  }
  log('installing dependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund']);
  lock.save();
}

function portOpen(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitForPort(host, port, seconds) {
  for (let i = 0; i < seconds * 4; i++) {
    if (await portOpen(host, port)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function dockerEngineAnswers() {
  return has('docker') && spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 }).status === 0;
}

let aptUpdated = false;
function aptInstall(packages) {
  if (!isRoot() || !has('apt-get')) return false;
  log(`installing ${packages.join(', ')} with apt`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  aptUpdated = true;
  return (
    spawnSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: quiet ? 'ignore' : 'inherit', env }).status ===
    0
  );
}

function startPostgresFromPackages() {
  if (!existsSync('/etc/postgresql') && !aptInstall(['postgresql'])) return false;
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  for (const version of versions) {
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'ignore' });
  }
  return versions.length > 0;
}

function startRedisFromPackages() {
  if (!has('redis-server') && !aptInstall(['redis-server'])) return false;
  return (
    spawnSync(
      'redis-server',
      ['--daemonize', 'yes', '--bind', '127.0.0.1', '-::1', '--port', '6379', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    ).status === 0
  );
}

/**
 * ffprobe and ffmpeg (video processing; images work without them): an explicit FFPROBE_PATH /
 * FFMPEG_PATH is checked and reported; else they are looked up on PATH and installed with apt
 * when running as root, else a message says what to install. Never stops the start.
 */
export function ensureVideoTools(env = process.env) {
  const tools = [
    ['FFPROBE_PATH', 'ffprobe'],
    ['FFMPEG_PATH', 'ffmpeg'],
  ];
  const found = (path) => (path.includes('/') ? existsSync(path) : has(path));
  const explicit = tools.filter(([name]) => env[name]);
  for (const [name, tool] of explicit) {
    if (!found(env[name]))
      console.warn(
        `[setup] ${name}=${env[name]} does not exist: videos wait in media_processing until ${tool} is there (images work). Point ${name} at ${tool} or unset it.`,
      );
  }
  const missing = tools.filter(([name, tool]) => !env[name] && !found(tool));
  if (missing.length === 0) return true;
  if (aptInstall(['ffmpeg']) && missing.every(([, tool]) => found(tool))) return true;
  console.warn(
    `[setup] ${missing.map(([, tool]) => tool).join(' and ')} not found: videos wait in media_processing until it is installed (images work).\n  Install ffmpeg (Debian/Ubuntu: sudo apt-get install ffmpeg; macOS: brew install ffmpeg) or set FFPROBE_PATH/FFMPEG_PATH.`,
  );
  return false;
}

async function ensureService({
  name,
  envName,
  url,
  defaultUrl,
  defaultPort,
  composeService,
  startFromPackages,
  install,
}) {
  const target = new URL(url ?? defaultUrl);
  const host = target.hostname;
  const port = Number(target.port || defaultPort);
  if (await portOpen(host, port)) return;
  if (url)
    fail(
      `${envName} points at ${host}:${port}, which does not answer. Start ${name} there, or unset ${envName} to use a local one.`,
    );
  if (dockerEngineAnswers()) {
    log(`starting ${name} with docker compose`);
    run('docker', ['compose', 'up', '-d', composeService]);
  } else {
    log(`starting ${name} from the system's packages`);
    startFromPackages();
  }
  if (!(await waitForPort(host, port, 30))) {
    fail(
      `${name} is not reachable on ${host}:${port} and could not be started here.\n  Install it (${install}), start it, or set ${envName}.`,
    );
  }
}

export async function ensureServices(env = process.env) {
  await ensureService({
    name: 'PostgreSQL',
    envName: 'DATABASE_URL',
    url: env.DATABASE_URL,
    defaultUrl: DEFAULT_DATABASE_URL,
    defaultPort: 5432,
    composeService: 'postgres',
    startFromPackages: startPostgresFromPackages,
    install: 'Debian: apt-get install postgresql',
  });
  await ensureService({
    name: 'Redis',
    envName: 'REDIS_URL',
    url: env.REDIS_URL,
    defaultUrl: DEFAULT_REDIS_URL,
    defaultPort: 6379,
    composeService: 'redis',
    startFromPackages: startRedisFromPackages,
    install: 'Debian: apt-get install redis-server',
  });
}

/** Creates the database named in the URL when the server lacks it. */
export async function ensureDatabaseExists(url) {
  const { default: pg } = await import('pg');
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      log(`creating database ${name}`);
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    }
  } finally {
    await client.end();
  }
}

export function generatePrismaClient() {
  const generated = stamp('prisma-generate', [join(root, 'prisma/schema.prisma'), join(root, 'package-lock.json')]);
  if (generated.fresh && existsSync(join(root, 'libs/db/src/generated/prisma/client.ts'))) return;
  log('generating the Prisma client');
  run('npx', ['prisma', 'generate'], { stdio: 'pipe' });
  generated.save();
}

async function appliedMigrations(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    return new Set(rows.map((r) => r.migration_name));
  } catch {
    return new Set();
  } finally {
    await client.end();
  }
}

/** `prisma migrate deploy`, skipped when every committed migration is already applied. */
export async function migrate(url) {
  const committed = readdirSync(join(root, 'prisma/migrations'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const applied = await appliedMigrations(url);
  if (committed.every((name) => applied.has(name))) return;
  log('applying migrations');
  run('npx', ['prisma', 'migrate', 'deploy'], { env: { ...process.env, DATABASE_URL: url }, stdio: 'pipe' });
}

/**
 * Where tests and benchmarks make their throw-away databases (beside the main one, through the
 * `postgres` maintenance database) and Redis prefixes: the variables libs/testing reads.
 */
export function testServicesEnv(env = process.env) {
  const admin = new URL(env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
  admin.pathname = '/postgres';
  return {
    FRAMEDESK_TEST_ADMIN_URL: admin.toString(),
    FRAMEDESK_TEST_REDIS_URL: env.REDIS_URL ?? DEFAULT_REDIS_URL,
  };
}

export async function setup({ database = true } = {}) {
  ensureDependencies();
  generatePrismaClient();
  await ensureServices();
  if (database) {
    const url = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
    await ensureDatabaseExists(url);
    await migrate(url);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const step = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'all';
  if (step === 'deps') {
    ensureDependencies();
    generatePrismaClient();
  } else if (step === 'services') {
    ensureDependencies();
    await ensureServices();
  } else {
    await setup();
  }
}
