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
      // Integration tests start processes and wait on real services. CI's machine has run the suite
      // at two to three times this machine's idle pace: the bounds are for that, not for a test's
      // expected length (no test here takes more than a few seconds idle without its own bound).
      testTimeout: 120_000,
      hookTimeout: 120_000,
      reporters: ['default'],
      // A project's test files share one process per worker and its loaded modules: isolating
      // each file (vitest's default) re-imported the app's whole module graph per file, 3.8 s a
      // file in the api's tests (261 s of CI's 29-minute api run; libs/submissions ran in 22 s
      // instead of 41 s without). Every file makes its own database, Redis prefix, app and
      // registries, so nothing it relies on lives in a module. A project whose files change global
      // state (the workbench's DOM) sets `isolate: true` again.
      isolate: false,
      globalSetup: [join(root, 'tools/vitest.global-setup.ts')],
      passWithNoTests: true,
      ...overrides.test,
    },
  });
}
