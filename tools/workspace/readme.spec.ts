// The README's env table is generated from the settings schema; this keeps the two in step.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { renderEnvTable } from './env-table';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

it('lists every environment variable with its default', () => {
  const between = /<!-- env-table:start -->\n([\s\S]*?)\n<!-- env-table:end -->/.exec(readme);
  expect(between, 'README.md needs the env-table markers').not.toBeNull();
  expect(between![1]).toBe(renderEnvTable());
});

it('states the two commands', () => {
  expect(readme).toContain('npm start');
  expect(readme).toContain('npm test');
});
