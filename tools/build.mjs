#!/usr/bin/env node
// `npm run build [api worker cli workbench]`: everything the README's "Running in production"
// section runs. The api, worker and cli are bundled with esbuild into plain JavaScript under
// dist/<app>/main.mjs: our own libs are bundled in, packages from node_modules stay imports, so
// the built files run with production dependencies only (`npm ci --omit=dev`), no tsx. The
// workbench is the static Vite build the API serves at / (apps/workbench/dist, WORKBENCH_DIST).
// Code splitting keeps what main.ts imports dynamically (the app after tracing has started) in
// chunks of its own, with its package imports: one file would hoist every import of express, pg
// or pino above the entry's first line, before the tracing SDK could hook them.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const BUNDLED_APPS = ['api', 'worker', 'cli'];
const APPS = [...BUNDLED_APPS, 'workbench'];
const wanted = process.argv.slice(2).filter((name) => !name.startsWith('-'));
// --out=<dir>: another output root (inside the repository, so node_modules resolve); the
// workbench then goes to <dir>/workbench instead of apps/workbench/dist.
const outArg = process.argv.find((arg) => arg.startsWith('--out='))?.slice('--out='.length);
const out = outArg ?? join(root, 'dist');
const unknown = wanted.filter((name) => !APPS.includes(name));
if (unknown.length > 0) {
  console.error(`build: unknown app ${unknown.join(', ')} (known: ${APPS.join(', ')})`);
  process.exit(1);
}

async function bundleApp(app) {
  const outdir = join(out, app);
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { main: join(root, `apps/${app}/src/main.ts`) },
    outdir,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
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
  return join(outdir, 'main.mjs');
}

async function buildWorkbench() {
  // Vite is a build tool (a devDependency): loaded only when the workbench is built.
  const { build: viteBuild } = await import('vite');
  const outDir = outArg ? join(out, 'workbench') : join(root, 'apps/workbench/dist');
  await viteBuild({
    configFile: join(root, 'apps/workbench/vite.config.ts'),
    build: { outDir, emptyOutDir: true },
    logLevel: 'warn',
  });
  return join(outDir, 'index.html');
}

for (const app of wanted.length > 0 ? wanted : APPS) {
  const started = Date.now();
  const output = BUNDLED_APPS.includes(app) ? await bundleApp(app) : await buildWorkbench();
  console.log(`build: ${output} (${Date.now() - started} ms)`);
}
