// The README's "Running in production" section, followed word for word by an operator on a copy of
// the tree: its build commands, production dependencies only, a fresh database migrated by it,
// `npm run api` and `npm run worker` with NODE_ENV=production, its built-CLI examples, then a
// frame sent by the agent the CLI made, and the reviewer it made signing in at the API's own `/`
// in chromium and promoting it. The commands are read from the README, so the section cannot
// drift from what works (it once yielded no workbench: `npm run build` did not build it).
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedisPrefix,
  freePort,
  launchChromium,
  makePng,
  type RunningProcess,
  type TestDatabase,
  testRedisUrl,
  waitForHttp,
  writeTestConfig,
} from '@framedesk/testing';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The `sh` blocks of the README's "Running in production" section, as command lines. */
function productionBlocks(text: string): string[][] {
  const section = /^## Running in production\n([\s\S]*?)(?=^## )/m.exec(text)?.[1];
  if (!section) throw new Error('README.md has no "## Running in production" section');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map(([, body]) =>
    body!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

const PROCESSES = ['npm run api', 'npm run worker'];

/** All of the workbench's JavaScript, gzipped, at most (docs/workbench.md, "Budget"). */
const WORKBENCH_JAVASCRIPT_BUDGET = 212_000;

/** Every .js file under a build's folder with its gzipped size in bytes, and their sum. */
function gzippedJavaScript(dir: string): { files: Record<string, number>; total: number } {
  const names = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'));
  const files = Object.fromEntries(names.map((name) => [name, gzipSync(readFileSync(join(dir, name))).length]));
  return { files, total: Object.values(files).reduce((sum, bytes) => sum + bytes, 0) };
}

/**
 * What an operator's fresh shell has: no variables of the npm script or the test runner that
 * started this test (npm_config_*, NODE_ENV=test, node_modules/.bin on PATH).
 */
function operatorEnv(settings: Record<string, string>): Record<string, string> {
  const inherited = process.env;
  const keep = ['HOME', 'LANG', 'TMPDIR', 'USER', 'SHELL'].filter((name) => inherited[name] !== undefined);
  const path = (inherited['PATH'] ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter);
  return { ...Object.fromEntries(keep.map((name) => [name, inherited[name]!])), PATH: path, ...settings };
}

interface Shell {
  readonly code: number | null;
  readonly output: string;
}

function sh(command: string, cwd: string, env: Record<string, string>, timeoutMs = 600_000): Promise<Shell> {
  return new Promise((done) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

async function mustRun(command: string, cwd: string, env: Record<string, string>): Promise<string> {
  const result = await sh(command, cwd, env);
  if (result.code !== 0) throw new Error(`\`${command}\` exited ${result.code}:\n${result.output.slice(-4000)}`);
  return result.output;
}

/** The tree as a clean clone has it (tracked files, plus new ones not ignored), in `dir`. */
async function copyTree(dir: string): Promise<void> {
  await mustRun(
    `git ls-files -z --cached --others --exclude-standard | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\\0" "$f"; done' _ | tar --null -cf - -T - | tar -xf - -C '${dir}'`,
    root,
    operatorEnv({}),
  );
}

/** `command` (e.g. `npm run api`) as a process group of its own, so a stop reaches npm's child too. */
function startCommand(command: string, cwd: string, env: Record<string, string>): RunningProcess {
  const child = spawn('sh', ['-c', `exec ${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    name: command,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, signal);
      return exited;
    },
  };
}

describe('the README\'s "Running in production" section, word for word', () => {
  const blocks = productionBlocks(readme);
  const [steps = [], cliExamples = []] = blocks;
  let copy: string;
  let database: TestDatabase;
  let redis: ReturnType<typeof createTestRedisPrefix>;
  const processes: RunningProcess[] = [];
  let browser: Browser | undefined;
  let apiUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'framedesk-production-'));
    database = await createTestDatabase({ migrated: false });
    redis = createTestRedisPrefix();
    const apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: redis.prefix,
      STORAGE_FS_ROOT: join(copy, '.data/storage'),
      FRAMEDESK_CONFIG: await writeTestConfig(copy, apiUrl),
      SESSION_SECRET: randomBytes(32).toString('hex'),
      API_PORT: String(apiPort),
      WORKER_HEALTH_PORT: String(await freePort()),
      MALLOC_ARENA_MAX: '2',
    };
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(processes.map((p) => p.stop()));
    await database?.drop();
    await redis?.cleanup();
    if (copy) await rm(copy, { recursive: true, force: true });
  }, 60_000);

  it('names the build, the install, the migration and the two processes', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const process of PROCESSES) expect(steps).toContain(process);
    expect(steps.some((line) => line.includes('npm run build'))).toBe(true);
    expect(cliExamples.every((line) => line.includes('node dist/cli/main.mjs'))).toBe(true);
  });

  it(
    'builds, migrates and runs them; the built CLI sets up; a frame is promoted in the served workbench',
    { timeout: 900_000 },
    async () => {
      await copyTree(copy);
      for (const step of steps.filter((line) => !PROCESSES.includes(line))) await mustRun(step, copy, operatorEnv(env));
      expect(existsSync(join(copy, 'apps/workbench/dist/index.html'))).toBe(true);
      const workbench = gzippedJavaScript(join(copy, 'apps/workbench/dist'));
      expect(workbench.total, JSON.stringify(workbench.files, null, 1)).toBeLessThanOrEqual(
        WORKBENCH_JAVASCRIPT_BUDGET,
      );
      expect(existsSync(join(copy, 'node_modules/tsx')), 'production dependencies only').toBe(false);

      const production = operatorEnv({ ...env, NODE_ENV: 'production' });
      const [api, worker] = PROCESSES.map((command) => startCommand(command, copy, production));
      processes.push(api!, worker!);
      await waitForHttp(`${apiUrl}/readyz`, 60_000, api);
      await waitForHttp(`http://127.0.0.1:${env['WORKER_HEALTH_PORT']}/readyz`, 60_000, worker);

      // The README's built-CLI examples, as written: a reviewer, a channel, an agent and its key.
      let apiKey = '';
      for (const line of cliExamples) {
        const out = await mustRun(line, copy, production);
        apiKey = /"api_key":"(fd_live_[^"]+)"/.exec(out)?.[1] ?? apiKey;
      }
      const reviewer = /^echo '([^']+)' \| node dist\/cli\/main\.mjs reviewer create (\S+)/.exec(
        cliExamples.find((line) => line.includes('reviewer create')) ?? '',
      );
      const agent = /agent create (\S+) --channel (\S+)/.exec(
        cliExamples.find((l) => l.includes('agent create')) ?? '',
      );
      expect(reviewer, 'the CLI block creates a reviewer with echo … | … --password-stdin').not.toBeNull();
      expect(agent, 'the CLI block creates an agent with --channel').not.toBeNull();
      expect(apiKey).toMatch(/^fd_live_/);
      const [, password, email] = reviewer!;
      const [, agentSlug, channelSlug] = agent!;

      // The agent sends a frame; the worker takes it to needs_review.
      const form = new FormData();
      const metadata = {
        agent_slug: agentSlug,
        channel_slug: channelSlug,
        date: '20261124',
        title: 'Production frame',
      };
      form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
      form.append('image', new Blob([new Uint8Array(makePng(320, 180, { seed: 7 }))], { type: 'image/png' }), 'f.png');
      const headers = { authorization: `Bearer ${apiKey}` };
      const created = await fetch(`${apiUrl}/v1/frame-submissions`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: form,
      });
      expect(created.status).toBe(202);
      const { id } = (await created.json()) as { id: string };
      const statusOf = async () =>
        ((await (await fetch(`${apiUrl}/v1/frame-submissions/${id}`, { headers })).json()) as { status: string })
          .status;
      await expect.poll(statusOf, { timeout: 60_000, interval: 250 }).toBe('needs_review');

      // The reviewer signs in at the API's own / and promotes it.
      const home = await fetch(`${apiUrl}/`, { headers: { accept: 'text/html' } });
      expect(home.status).toBe(200);
      expect(home.headers.get('content-type')).toContain('text/html');
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${apiUrl}/`);
      await page.getByLabel('Email').fill(email!);
      await page.getByLabel('Password').fill(password!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Production frame').first().click();
      await page.getByRole('heading', { name: 'Production frame' }).waitFor();
      await page.keyboard.press('p');
      await expect.poll(statusOf, { timeout: 30_000, interval: 250 }).toBe('promoted');
    },
  );
});
