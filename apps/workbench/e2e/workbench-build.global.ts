// Once per browser-test run, in vitest's main process: one production build of the workbench that
// every e2e file serves (each built its own before: ten `vite build`s a run, about 25 s of both
// cores each). Removed when the run ends.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of this run's workbench build (`WORKBENCH_DIST` of every stack). */
    workbenchDist: string;
  }
}

const root = resolve(import.meta.dirname, '../../..');

export default function setup(project: TestProject): () => void {
  const dist = mkdtempSync(join(tmpdir(), 'framedesk-workbench-'));
  const result = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'apps/workbench/vite.config.ts',
      '--outDir',
      dist,
      '--emptyOutDir',
      // The JavaScript budget reads what each screen loads from the manifest.
      '--manifest',
      '--logLevel',
      'warn',
    ],
    // As in production: the test runner's NODE_ENV=test would ship React's development build.
    // eslint-disable-next-line no-restricted-properties -- the child's environment, not a product setting.
    { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } },
  );
  if (result.status !== 0) {
    rmSync(dist, { recursive: true, force: true });
    throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
  }
  project.provide('workbenchDist', dist);
  return () => rmSync(dist, { recursive: true, force: true });
}
