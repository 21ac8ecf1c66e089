import { defineProject } from '../vitest.shared.ts';

export default defineProject(import.meta.dirname, {
  test: { include: ['*.spec.ts'], testTimeout: 120_000, hookTimeout: 120_000 },
});
