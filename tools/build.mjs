#!/usr/bin/env node
// `npm run build [api worker cli]`: bundles each app with esbuild into plain JavaScript under
// dist/<app>/main.mjs. Our own libs are bundled in; packages from node_modules stay imports,
// so the built files run with production dependencies only (`npm ci --omit=dev`), no tsx.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const APPS = ['api', 'worker', 'cli'];
const wanted = process.argv.slice(2).filter((name) => !name.startsWith('-'));
// --out=<dir>: another output root (inside the repository, so node_modules resolve).
const out = process.argv.find((arg) => arg.startsWith('--out='))?.slice('--out='.length) ?? join(root, 'dist');
const unknown = wanted.filter((name) => !APPS.includes(name));
if (unknown.length > 0) {
  console.error(`build: unknown app ${unknown.join(', ')} (known: ${APPS.join(', ')})`);
  process.exit(1);
}

for (const app of wanted.length > 0 ? wanted : APPS) {
  const outdir = join(out, app);
  await rm(outdir, { recursive: true, force: true });
  const started = Date.now();
  await build({
    entryPoints: [join(root, `apps/${app}/src/main.ts`)],
    outfile: join(outdir, 'main.mjs'),
    absWorkingDir: root,
    tsconfig: join(root, 'tsconfig.base.json'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  console.log(`build: ${join(outdir, 'main.mjs')} (${Date.now() - started} ms)`);
}
