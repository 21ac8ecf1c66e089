// Prints the README's environment table from the settings schema (libs/config/src/settings.ts).
// `npx tsx --tsconfig tsconfig.base.json tools/workspace/env-table.ts`; a test keeps the README in step.
import { settingsTable } from '@framedesk/config';

export function renderEnvTable(): string {
  const rows = settingsTable().map(
    ({ name, defaultValue, description }) =>
      `| \`${name}\` | ${defaultValue === '' ? '—' : `\`${defaultValue}\``} | ${description} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(renderEnvTable());
