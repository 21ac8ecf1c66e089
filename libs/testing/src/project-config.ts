import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type ProjectConfig, validateProjectConfig } from '@framedesk/config';

const workspaceRoot = resolve(import.meta.dirname, '../../..');

/** A project configuration a test may edit in place before it is validated. */
export type ConfigChange = (config: {
  -readonly [K in keyof ProjectConfig]: { -readonly [P in keyof ProjectConfig[K]]: ProjectConfig[K][P] };
}) => void;

/** config/project.example.json, changed by `change` and validated: the one copy every harness reads. */
export async function exampleProjectConfig(change?: ConfigChange): Promise<ProjectConfig> {
  const raw = JSON.parse(await readFile(join(workspaceRoot, 'config/project.example.json'), 'utf8'));
  change?.(raw);
  const result = validateProjectConfig(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.violations));
  return result.value;
}
