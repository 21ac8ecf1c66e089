#!/usr/bin/env node
// `npm run bench [-- --quick]`: the same set-up as `npm start` and `npm test` (dependencies, Prisma
// client, PostgreSQL and Redis), then tools/bench/run.ts. Benchmarks are never part of npm test.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root, setup, testServicesEnv } from './setup.mjs';

await setup({ database: false });

// Benchmarks make throw-away databases beside the main one, as the integration tests do.
const env = {
  ...process.env,
  ...testServicesEnv(),
  TSX_TSCONFIG_PATH: join(root, 'tsconfig.base.json'),
};
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', join(root, 'tools/bench/run.ts'), ...process.argv.slice(2)],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(run.status ?? 1);
