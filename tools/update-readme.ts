// Rewrites the README's env table from the settings schema:
// `npx tsx --tsconfig tsconfig.base.json tools/update-readme.ts`.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderEnvTable } from './workspace/env-table';

const file = resolve(import.meta.dirname, '../README.md');
const readme = readFileSync(file, 'utf8');
writeFileSync(
  file,
  readme.replace(/(<!-- env-table:start -->)[\s\S]*?(<!-- env-table:end -->)/, `$1\n${renderEnvTable()}\n$2`),
);
