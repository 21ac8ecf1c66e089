// Lint that carries its reasons (STYLE.md 11). Run as `eslint --config tools/eslint.config.mjs <dir>`.
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/generated/**',
      '**/.nx/**',
      '**/test-results/**',
      '**/*.mjs',
      '**/*.js',
      '**/*.cjs',
      '.config/**',
      '**/vite.config.ts',
      '**/vite.*.config.ts',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname + '/..' },
    },
    rules: {
      // Apps hold transport and wiring; libs hold everything shared. Apps never import apps,
      // libs never import apps, and the browser app reaches only browser-safe libs.
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:util', 'type:data-access', 'type:feature'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:workbench', onlyDependOnLibsWithTags: ['scope:browser'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:util', 'type:data-access'] },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:util', 'type:data-access', 'type:feature'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:util', 'type:data-access'] },
            // Workspace checks, benchmarks and scripts may read any lib, never the reverse.
            { sourceTag: 'type:tooling', onlyDependOnLibsWithTags: ['*'] },
          ],
        },
      ],
      // An unawaited promise is an unhandled rejection waiting to crash a worker.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      // A new status or error code must be handled wherever we switch on one.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Files stay readable in one sitting; nobody disables this.
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      // The environment is read once, by libs/config's loadSettings; everything else gets Settings.
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read settings from loadSettings() (libs/config), not process.env.',
        },
      ],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    files: [
      'libs/config/src/settings.ts',
      'apps/*/src/main.ts',
      'apps/*/src/*-process.ts',
      'apps/cli/src/**/*.ts',
      'tools/**/*.ts',
      // The engines are development and test tooling, like tools/: they print and read their own variables.
      'libs/testing/src/engines/**/*.ts',
      '**/*.spec.ts',
      '**/*.spec.tsx',
      '**/*.test-support.ts',
      'apps/*/test/**/*.ts',
      '**/vite.config.ts',
      '**/vite.*.config.ts',
    ],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  {
    // Tests, and a library's helpers for its own specs (`*.test-support.ts`, never exported).
    files: ['**/*.spec.ts', '**/*.spec.tsx', '**/*.test-support.ts', 'apps/*/test/**/*.ts', 'apps/*/e2e/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { allow: ['@framedesk/testing'], depConstraints: [{ sourceTag: '*', onlyDependOnLibsWithTags: ['*'] }] },
      ],
    },
  },
  {
    files: ['apps/workbench/**/*.tsx', 'apps/workbench/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  // Last: layout is Prettier's job (npm run format), so no lint rule may disagree with it.
  prettier,
);
