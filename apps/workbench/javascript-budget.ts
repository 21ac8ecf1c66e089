// What a reviewer's browser downloads, measured by the build itself (docs/workbench.md, "Budget").
// The build writes `.vite/javascript-budget.json` beside its files and prints one line; the
// browser-test lane's apps/workbench/e2e/javascript-budget.e2e.spec.ts fails when the queue's first load
// is past the budget.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Gzipped bytes the queue's first load may need at most: the entry, its static imports and the queue's chunk. */
export const FIRST_LOAD_BUDGET = 200_000;

/** The queue screen's module, as the report names screens (relative to apps/workbench). */
export const QUEUE_SCREEN = 'src/screens/QueueScreen.tsx';

/** Where the build writes the report, under its output folder (a dot folder: the API does not serve it). */
export const REPORT_FILE = '.vite/javascript-budget.json';

/** One JavaScript file of the build and the files it imports, statically and on demand. */
export interface BuiltChunk {
  readonly file: string;
  readonly isEntry: boolean;
  /** The module the chunk stands for (a lazily loaded screen's file), relative to apps/workbench. */
  readonly module: string | null;
  readonly imports: readonly string[];
  readonly dynamicImports: readonly string[];
}

export interface JavaScriptReport {
  /** The entry and everything it imports statically: what the sign-in page (and every page) loads first. */
  readonly firstPage: number;
  /** The first page plus the queue screen's chunk and its static imports: the queue's first load. */
  readonly queue: number;
  /** Each screen the first page loads on demand (by module), with the first page's chunks. */
  readonly screens: Record<string, number>;
  /** Every JavaScript file of the build, each gzipped on its own. */
  readonly all: number;
  readonly budget: number;
}

/** Sums gzipped sizes per page from the build's chunk graph; `size` gives a file's gzipped bytes. */
export function measure(chunks: readonly BuiltChunk[], size: (file: string) => number): JavaScriptReport {
  const byFile = new Map(chunks.map((chunk) => [chunk.file, chunk]));
  const closure = (file: string, seen: Set<string>): Set<string> => {
    if (seen.has(file)) return seen;
    seen.add(file);
    for (const next of byFile.get(file)?.imports ?? []) closure(next, seen);
    return seen;
  };
  const total = (files: Iterable<string>) => [...files].reduce((sum, file) => sum + size(file), 0);
  const entry = chunks
    .filter((chunk) => chunk.isEntry)
    .reduce((seen, chunk) => closure(chunk.file, seen), new Set<string>());
  const screens: Record<string, number> = {};
  for (const lazy of [...entry].flatMap((file) => byFile.get(file)?.dynamicImports ?? [])) {
    const name = byFile.get(lazy)?.module ?? lazy;
    screens[name] = total(closure(lazy, new Set(entry)));
  }
  return {
    firstPage: total(entry),
    queue: screens[QUEUE_SCREEN] ?? total(entry),
    screens,
    all: total(chunks.map((chunk) => chunk.file)),
    budget: FIRST_LOAD_BUDGET,
  };
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** Vite plugin: after the files are written, measures them and reports (the sizes are the files' own, placeholders replaced). */
export function javaScriptBudget(root: string): Plugin {
  return {
    name: 'framedesk-javascript-budget',
    apply: 'build',
    enforce: 'post',
    writeBundle(options, bundle) {
      const dir = options.dir!;
      const chunks: BuiltChunk[] = [];
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        chunks.push({
          file: output.fileName,
          isEntry: output.isEntry,
          module: output.facadeModuleId ? relative(root, output.facadeModuleId) : null,
          imports: output.imports,
          dynamicImports: output.dynamicImports,
        });
      }
      // zlib's default level, as docs/workbench.md measures (the .gz files the API sends are level 9).
      const report = measure(chunks, (file) => gzipSync(readFileSync(join(dir, file))).length);
      mkdirSync(join(dir, '.vite'), { recursive: true });
      writeFileSync(join(dir, REPORT_FILE), `${JSON.stringify(report, null, 1)}\n`);
      // On stdout whatever the log level (tools/build.mjs builds with logLevel warn).
      process.stdout.write(
        `workbench JavaScript, gzipped: first page ${kB(report.firstPage)}, queue ${kB(report.queue)} ` +
          `(budget ${kB(report.budget)}), all files ${kB(report.all)}\n`,
      );
    },
  };
}
