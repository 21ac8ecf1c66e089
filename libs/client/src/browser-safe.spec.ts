import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every module index.ts reaches, with the value (non-type) imports each one makes. */
function reachable(file: string, seen = new Map<string, string[]>()): Map<string, string[]> {
  if (seen.has(file)) return seen;
  const source = readFileSync(file, 'utf8');
  const imports = [...source.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
  seen.set(file, imports);
  for (const spec of imports.filter((s) => s.startsWith('.'))) reachable(resolve(dirname(file), `${spec}.ts`), seen);
  return seen;
}

describe('@framedesk/client in a browser', () => {
  it('reaches no Node module and no server code from its entry point', () => {
    const graph = reachable(join(import.meta.dirname, 'index.ts'));
    expect(graph.size).toBeGreaterThan(3);
    for (const [file, imports] of graph) {
      const foreign = imports.filter((s) => !s.startsWith('.'));
      expect({ file, foreign }).toEqual({ file, foreign: [] });
    }
  });
});
