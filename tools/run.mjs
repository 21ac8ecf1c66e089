#!/usr/bin/env node
// `npm run api` / `npm run worker` (or `node tools/run.mjs cli …`): one process of one app, configured only by
// the environment (README settings table). No seeding, no dev server, no set-up, no installs:
// what is missing is named and the process exits 1. Runs the production build
// (dist/<app>/main.mjs, `npm run build`) when present, else the TypeScript source through tsx.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const app = process.argv[2];
if (!['api', 'worker', 'cli'].includes(app ?? '')) {
  console.error('usage: node tools/run.mjs api|worker|cli [args…]');
  process.exit(2);
}
// The app reads its own arguments after the script name.
process.argv.splice(2, 1);

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`${app}: Node.js ≥ 20.19 is required (this is ${process.versions.node}).`);
  process.exit(1);
}

const require = createRequire(join(root, 'package.json'));
const missing = ['express', 'bullmq', 'ioredis', '@prisma/client', 'sharp', '@tus/server'].filter((name) => {
  try {
    require.resolve(name);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  console.error(`${app}: dependencies are missing (${missing.join(', ')}). Install them first: npm ci --omit=dev`);
  process.exit(1);
}

const built = join(root, 'dist', app, 'main.mjs');
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  if (!existsSync(join(root, 'libs/db/src/generated/prisma/client.ts'))) {
    console.error(`${app}: the Prisma client is not generated. Run: npm run db:generate (or npm run build)`);
    process.exit(1);
  }
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error(`${app}: no build (dist/${app}/main.mjs) and no tsx to run the source. Run: npm run build`);
    process.exit(1);
  }
  register({ tsconfig: join(root, 'tsconfig.base.json') });
  await import(pathToFileURL(join(root, `apps/${app}/src/main.ts`)).href);
}
