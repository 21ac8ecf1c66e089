// The same lint as tools/eslint.config.mjs, over the whole workspace in one process (`npm test`):
// type information comes from two programs (every Node project's files, and the workbench's)
// instead of one per tsconfig.json, so each file is parsed and typed once.
import base from './eslint.config.mjs';

const root = import.meta.dirname + '/..';

export default [
  ...base,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: ['tsconfig.node.json', 'apps/workbench/tsconfig.json'],
        tsconfigRootDir: root,
      },
    },
  },
];
