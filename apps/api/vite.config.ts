import { defineProject } from '../../tools/vitest.shared.ts';

export default defineProject(import.meta.dirname, {
  test: { include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'], fileParallelism: true },
});
