#!/usr/bin/env node
// `npm start`: set up this machine (tools/setup.mjs), seed a demo on first run, then run the
// API, one worker and the workbench dev server together with prefixed logs. Ctrl-C stops all.
// The API and the worker log one readable line per event here (LOG_FORMAT=pretty, unless set);
// in production they log JSON.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureVideoTools, root, setup } from './setup.mjs';

await setup();
ensureVideoTools();

// Memory settings as in production (README "Running in production", docs/performance.md "Memory").
const env = {
  LOG_FORMAT: 'pretty',
  MALLOC_ARENA_MAX: '2',
  ...process.env,
  TSX_TSCONFIG_PATH: join(root, 'tsconfig.base.json'),
};
const bin = (name) => join(root, 'node_modules/.bin', name);
const app = (name) => `node --import tsx apps/${name}/src/main.ts`;

const seed = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', 'demo', 'seed'], {
  cwd: root,
  env,
  stdio: 'inherit',
});
if (seed.status !== 0) process.exit(seed.status ?? 1);

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
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
