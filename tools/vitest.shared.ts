import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const root = resolve(import.meta.dirname, '..');

/** `@framedesk/*` aliases, read from the one place they are declared: tsconfig.base.json. */
export function workspaceAliases(): Record<string, string> {
  const base = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, [string]> };
  };
  // Longest first: an alias matches its own name and anything under it, so
  // `@framedesk/observability/start-tracing` must be tried before `@framedesk/observability`.
  return Object.fromEntries(
    Object.entries(base.compilerOptions.paths)
      .sort(([a], [b]) => b.length - a.length)
      .map(([name, [target]]) => [name, resolve(root, target)]),
  );
}

/**
 * The vitest configuration every project shares. Unit tests are `*.spec.ts`; integration tests
 * (`*.int.spec.ts`) talk to the real PostgreSQL and Redis that `npm test` prepared.
 */
export function defineProject(projectDir: string, overrides: ViteUserConfig = {}): ViteUserConfig {
  return defineConfig({
    root: projectDir,
    resolve: { alias: workspaceAliases() },
    ...overrides,
    test: {
      name: basename(projectDir),
      include: ['src/**/*.spec.ts', 'src/**/*.spec.tsx', 'test/**/*.spec.ts'],
      environment: 'node',
      // Integration tests start processes (tsx compiles them as they load): generous on a busy machine.
      testTimeout: 60_000,
      hookTimeout: 120_000,
      reporters: ['default'],
      passWithNoTests: true,
      ...overrides.test,
    },
  });
}
