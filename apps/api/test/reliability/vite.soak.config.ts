import { resolve } from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the shared vitest setup lives in tools/, as for every vite.config.ts
import { defineProject } from '../../../../tools/vitest.shared.ts';

// `npm run test:soak`: the soak and the longest fault runs, kept out of `npm test`.
export default defineProject(resolve(import.meta.dirname, '../..'), {
  test: {
    name: 'reliability-soak',
    include: ['test/reliability/**/*.long.ts'],
    fileParallelism: false,
    testTimeout: 1_200_000,
    hookTimeout: 120_000,
  },
});
