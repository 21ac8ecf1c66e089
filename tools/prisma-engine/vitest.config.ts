// `npx vitest run --config tools/prisma-engine/vitest.config.ts` runs the schema-engine
// integration test on its own. (`npx vitest run tools/prisma-engine --root .` works too: the
// spec sets its own timeouts.)
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: import.meta.dirname,
  test: {
    name: 'prisma-engine',
    include: ['*.int.spec.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
