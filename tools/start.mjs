#!/usr/bin/env node
// `npm start`: set up this machine (tools/setup.mjs), seed a demo on first run, then run the
// API, one worker and the workbench dev server together with prefixed logs. Ctrl-C stops all.
// The API and the worker log one readable line per event here (LOG_FORMAT=pretty, unless set);
// in production they log JSON. On the first run, once all three answer, sample frames are sent
// in the background (`demo samples`); FRAMEDESK_SAMPLES=false leaves them out.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { developmentConfigFor } from './workspace/dev-config.mjs';
import { DEFAULT_DATABASE_URL, ensureVideoTools, root, setup } from './setup.mjs';

await setup();
ensureVideoTools();

// Memory settings as in production (README "Running in production", docs/performance.md "Memory").
const env = {
  LOG_FORMAT: 'pretty',
  MALLOC_ARENA_MAX: '2',
  ...process.env,
  TSX_TSCONFIG_PATH: join(root, 'tsconfig.base.json'),
};
const portConfig = developmentConfigFor(root, env);
if (portConfig) {
  env.FRAMEDESK_CONFIG = portConfig;
  console.log(
    `[start] API_PORT=${env.API_PORT}: the example configuration with api.base_url on that port (${portConfig})`,
  );
}
const bin = (name) => join(root, 'node_modules/.bin', name);
const app = (name) => `node --import tsx apps/${name}/src/main.ts`;
const cli = (args, options) => [
  process.execPath,
  ['--import', 'tsx', 'apps/cli/src/main.ts', ...args],
  { cwd: root, env, ...options },
];

// Samples are pending while this file exists: from the first run until they are all in (a run
// interrupted before then picks them up again). One file per database.
const samplesWanted = !/^(false|0|no|off)$/i.test(process.env.FRAMEDESK_SAMPLES ?? '');
const database = new URL(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL).pathname.slice(1) || 'framedesk';
const samplesFile = join(root, '.data', `samples-pending-${database.replace(/[^\w.-]/g, '_')}.json`);

const seed = spawnSync(
  ...cli(['demo', 'seed', ...(samplesWanted ? ['--samples', samplesFile] : [])], { stdio: 'inherit' }),
);
if (seed.status !== 0) process.exit(seed.status ?? 1);
if (!samplesWanted) console.log('[samples] FRAMEDESK_SAMPLES=false: no sample frames are added');
else if (existsSync(samplesFile))
  console.log(
    '[samples] sample frames follow once the API, worker and workbench are up (to start a new database without them: FRAMEDESK_SAMPLES=false npm start)',
  );

const child = spawn(
  bin('concurrently'),
  [
    '--kill-others',
    '--names',
    'api,worker,workbench',
    '--prefix-colors',
    'cyan,magenta,green',
    `MALLOC_MMAP_THRESHOLD_=65536 NODE_OPTIONS=--max-semi-space-size=2 ${app('api')}`,
    app('worker'),
    `${bin('vite')} --config apps/workbench/vite.config.ts`,
  ],
  { cwd: root, env, stdio: 'inherit' },
);
let samples;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    samples?.kill(signal);
    child.kill(signal);
  });
child.on('exit', (code) => process.exit(code ?? 0));
void whenReady();

async function answers(url) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status < 500;
  } catch {
    return false;
  }
}

/**
 * Once the three answer: one line saying where to go (the API's own `/` serves only a built
 * workbench, so in development the address is the dev server's), then, on a first run, the
 * sample frames through `demo samples` in the background; its one line is printed when it is done.
 */
async function whenReady() {
  // As the workbench's dev server reaches the API (apps/workbench/vite.config.ts).
  const api = `http://127.0.0.1:${env.API_PORT || 3000}`;
  const workbench = `http://127.0.0.1:${env.WORKBENCH_PORT || 5173}/`;
  const urls = [`${api}/healthz`, `http://127.0.0.1:${env.WORKER_HEALTH_PORT || 9464}/healthz`, workbench];
  const deadline = Date.now() + 180_000;
  while (!(await Promise.all(urls.map(answers))).every(Boolean)) {
    if (Date.now() > deadline)
      return console.log('[start] the API, worker or workbench did not answer within 3 minutes: see their lines above');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.log(`[start] ready: open the workbench at ${workbench} (agents post to ${api}/v1)`);
  if (!samplesWanted || !existsSync(samplesFile)) return;
  samples = spawn(...cli(['demo', 'samples', samplesFile, '--base-url', api], { stdio: ['ignore', 'pipe', 'pipe'] }));
  for (const stream of [samples.stdout, samples.stderr])
    stream.on('data', (chunk) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) console.log(`[samples] ${line}`);
    });
}
