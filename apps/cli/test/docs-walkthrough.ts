// Runs the `# doc-test` blocks of docs/api.md with bash, as a reader would paste them.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const DOCS_FILE = resolve(import.meta.dirname, '../../../docs/api.md');

export interface DocBlock {
  /** The word after `# doc-test` (`''` for none): which walkthrough the block belongs to. */
  readonly tag: string;
  readonly source: string;
}

/** Every ```sh block whose first line is `# doc-test [tag]`, in document order. */
export function docBlocks(markdown = readFileSync(DOCS_FILE, 'utf8')): DocBlock[] {
  return [...markdown.matchAll(/^```sh\n# doc-test(?: (\S+))?\n([\s\S]*?)^```$/gm)].map((m) => ({
    tag: m[1] ?? '',
    source: m[2]!,
  }));
}

export interface BlockRun {
  readonly source: string;
  readonly output: string;
}

/**
 * Runs `blocks` in one bash (so variables carry from block to block, as in a terminal), stopping
 * at the first failing command. Resolves with each block's output, and bash's exit code.
 */
export function runBlocks(
  blocks: readonly DocBlock[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 150_000,
): Promise<{ code: number | null; runs: BlockRun[]; stdout: string; stderr: string }> {
  const marker = (i: number) => `@@doc-block-${i}@@`;
  const script = ['set -euo pipefail', ...blocks.flatMap((b, i) => [`echo '${marker(i)}'`, b.source])].join('\n');
  return new Promise((done) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? cwd, LANG: 'C.UTF-8', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // A walkthrough that hangs fails with what it printed so far, not as a bare test time-out.
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const runs = blocks.map((b, i) => {
        const start = stdout.indexOf(marker(i));
        const end = stdout.indexOf(marker(i + 1));
        const output = start === -1 ? '' : stdout.slice(start + marker(i).length + 1, end === -1 ? undefined : end);
        return { source: b.source, output };
      });
      done({ code, runs, stdout, stderr });
    });
  });
}

/** The output of the one block whose source contains `fragment`. */
export function outputOf(runs: readonly BlockRun[], fragment: string): string {
  const matching = runs.filter((r) => r.source.includes(fragment));
  if (matching.length !== 1) throw new Error(`${matching.length} doc blocks contain ${JSON.stringify(fragment)}`);
  return matching[0]!.output;
}
