import { join } from 'node:path';
import { defineProject } from '../../tools/vitest.shared.ts';

// Browser tests: build the workbench once, start the real api + worker, drive Debian's chromium.
export default defineProject(import.meta.dirname, {
  test: {
    name: 'workbench-e2e',
    include: ['e2e/**/*.e2e.spec.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    // The shared set-up, then one production build of the workbench for every file.
    globalSetup: [
      join(import.meta.dirname, '../../tools/vitest.global-setup.ts'),
      join(import.meta.dirname, 'e2e/workbench-build.global.ts'),
    ],
  },
});
