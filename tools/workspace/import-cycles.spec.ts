// No import cycles between our own source files. Nx's graph (module-graph.spec.ts) sees only
// projects; a cycle inside one (a command importing from the CLI that imports the command, a
// repository and its helper importing each other) makes load order matter and a module's
// exports undefined at the moment another reads them. Type-only imports count too: they tie the
// two files' designs together just the same.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const SOURCE = /\.(ts|tsx|mts)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'generated', '.nx', 'coverage']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `@framedesk/x` → the file tsconfig.base.json maps it to. */
function aliases(): Map<string, string> {
  const base = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, [string]> };
  };
  return new Map(Object.entries(base.compilerOptions.paths).map(([name, [target]]) => [name, resolve(root, target)]));
}

function resolveFile(base: string): string | undefined {
  const candidates = [base, ...['.ts', '.tsx', '/index.ts', '/index.tsx'].map((ext) => base + ext)];
  if (/\.(m?js)$/.test(base)) candidates.push(base.replace(/\.m?js$/, '.ts'), base.replace(/\.m?js$/, '.tsx'));
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every edge from one of our files to another of our files. */
export function importGraph(files: string[]): Map<string, string[]> {
  const alias = aliases();
  return new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(IMPORT)]
        .map(([, from, dynamic]) => from ?? dynamic!)
        .map((spec) =>
          spec.startsWith('.')
            ? resolveFile(resolve(dirname(file), spec))
            : alias.has(spec)
              ? alias.get(spec)
              : undefined,
        )
        .filter((target): target is string => target !== undefined && target !== file);
      return [file, [...new Set(targets)]];
    }),
  );
}

/** The cycles of the graph, one per strongly connected component (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

it('finds a cycle where there is one (the check itself works)', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
});

it('has no import cycle between our source files', () => {
  const files = ['apps', 'libs', 'tools'].flatMap((dir) => sourceFiles(join(root, dir)));
  expect(files.length).toBeGreaterThan(100);
  const found = cycles(importGraph(files)).map((cycle) => cycle.map((file) => relative(root, file)).join(' ↔ '));
  expect(found).toEqual([]);
});
