#!/usr/bin/env node
// `npm run bench [-- --quick]`: the same set-up as `npm start` and `npm test` (dependencies, Prisma
// client, PostgreSQL and Redis), then tools/bench/run.ts. Benchmarks are never part of npm test.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  DEFAULT_DATABASE_URL,
  DEFAULT_REDIS_URL,
  ensureDependencies,
  ensureServices,
  generatePrismaClient,
  root,
} from './setup.mjs';

ensureDependencies();
generatePrismaClient();
await ensureServices();

// Benchmarks make throw-away databases beside the main one, as the integration tests do.
const admin = new URL(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
admin.pathname = '/postgres';
const env = {
  ...process.env,
  TSX_TSCONFIG_PATH: join(root, 'tsconfig.base.json'),
  FRAMEDESK_TEST_ADMIN_URL: admin.toString(),
  FRAMEDESK_TEST_REDIS_URL: process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
};
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', join(root, 'tools/bench/run.ts'), ...process.argv.slice(2)],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(run.status ?? 1);
