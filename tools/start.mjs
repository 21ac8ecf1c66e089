#!/usr/bin/env node
// `npm start`: set up this machine (tools/setup.mjs), seed a demo on first run, then run the
// API, one worker and the workbench dev server together with prefixed logs. Ctrl-C stops all.
import { spawn, spawnSync } from 'node:child_process';
import { root, setup } from './setup.mjs';

await setup();

const seed = spawnSync('npx', ['tsx', '--tsconfig', 'tsconfig.base.json', 'apps/cli/src/main.ts', 'demo', 'seed'], { cwd: root, stdio: 'inherit' });
if (seed.status !== 0) process.exit(seed.status ?? 1);

const names = ['api', 'worker', 'workbench'];
const commands = [
  'tsx --tsconfig tsconfig.base.json apps/api/src/main.ts',
  'tsx --tsconfig tsconfig.base.json apps/worker/src/main.ts',
  'vite --config apps/workbench/vite.config.ts',
];
const child = spawn(
  'npx',
  ['concurrently', '--kill-others', '--names', names.join(','), '--prefix-colors', 'cyan,magenta,green', ...commands.map((c) => `npx ${c}`)],
  { cwd: root, stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
