import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REJECT_REASONS } from '@framedesk/contracts';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile';
import { POLICY_VARIABLES } from './cel-environment';

const doc = readFileSync(resolve(import.meta.dirname, '../../../docs/policies.md'), 'utf8');
const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);

describe('docs/policies.md', () => {
  it('every example compiles (a single rule as a file of one)', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const block of blocks) {
      const file = 'rules' in block ? block : { rules: [block] };
      const compiled = compilePolicy(file, REJECT_REASONS);
      expect(compiled.ok ? [] : compiled.problems, JSON.stringify(block)).toEqual([]);
    }
  });

  it('documents every variable', () => {
    for (const [name, fields] of Object.entries(POLICY_VARIABLES))
      for (const field of Object.keys(fields)) expect(doc, `${name}.${field}`).toMatch(new RegExp(`${field}`));
    expect(doc).toContain('`scores`');
  });
});
