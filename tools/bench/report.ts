import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { type BenchOptions } from './options';
import { workspaceRoot } from './processes';
import { type Figure, figure, formatNumber, spreadText } from './stats';

/** One line of the results table: a figure over repetitions, and its target when it has one. */
export interface Row {
  readonly scenario: string;
  readonly metric: string;
  readonly unit: string;
  readonly figure: Figure;
  readonly target?: { readonly text: string; readonly met: boolean };
}

export interface ScenarioResult {
  readonly name: string;
  readonly rows: Row[];
  /** Raw per-repetition data, kept in the JSON file. */
  readonly details: Record<string, unknown>;
  /** What the reader must know to read the figures (e.g. a smaller data set under --quick). */
  readonly notes: string[];
  /** Evidence for a missed target (query plans, breakdowns), printed under the table. */
  readonly evidence?: string[];
}

export function row(
  scenario: string,
  metric: string,
  unit: string,
  values: readonly number[],
  target?: (median: number) => { text: string; met: boolean },
): Row {
  const f = figure(values);
  return { scenario, metric, unit, figure: f, ...(target ? { target: target(f.median) } : {}) };
}

export const atLeast =
  (limit: number, unit = '') =>
  (value: number) => ({ text: `≥ ${limit}${unit}`, met: value >= limit });
export const atMost =
  (limit: number, unit = '') =>
  (value: number) => ({ text: `≤ ${limit}${unit}`, met: value <= limit });

function packageVersion(name: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(workspaceRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'missing';
  }
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: workspaceRoot, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpus: { count: cpus.length, model: cpus[0]?.model ?? 'unknown', mhz: cpus[0]?.speed ?? 0 },
    memoryBytes: os.totalmem(),
    freeMemoryBytes: os.freemem(),
    loadAverage: os.loadavg(),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    packages: Object.fromEntries(
      [
        'express',
        'multer',
        'busboy',
        'sharp',
        '@img/sharp-libvips-linux-x64',
        'bullmq',
        'ioredis',
        '@prisma/client',
        'pg',
        'tsx',
      ].map((p) => [p, packageVersion(p)]),
    ),
    git: {
      commit: git(['rev-parse', 'HEAD']),
      changedFiles: git(['status', '--porcelain']).split('\n').filter(Boolean).length,
    },
  };
}

const fmt = (f: Figure) => formatNumber(f.median);

export function markdownTable(results: readonly ScenarioResult[]): string {
  const lines = ['| Scenario | Figure | Median | Spread | Reps | Target | Met |', '|---|---|---:|---:|---:|---|:---:|'];
  for (const result of results) {
    for (const r of result.rows) {
      const unit = r.unit ? ` ${r.unit}` : '';
      lines.push(
        `| ${r.scenario} | ${r.metric} | ${fmt(r.figure)}${unit} | ${spreadText(r.figure)} | ${r.figure.values.length} | ${r.target?.text ?? ''} | ${r.target ? (r.target.met ? 'yes' : '**no**') : ''} |`,
      );
    }
  }
  return lines.join('\n');
}

type Machine = ReturnType<typeof machine> & {
  readonly loadAverageAtEnd?: number[];
  readonly configs?: Record<string, unknown>;
};

export function markdownReport(input: {
  startedAt: Date;
  options: BenchOptions;
  results: readonly ScenarioResult[];
  failures: readonly string[];
  machine: Machine;
  durationMs: number;
}): string {
  const m = input.machine;
  const out = [
    `# Benchmark results ${input.startedAt.toISOString()}${input.options.quick ? ' (--quick)' : ''}`,
    '',
    `Machine: ${m.cpus.count} × ${m.cpus.model}, ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, load average ${m.loadAverage.map((l) => l.toFixed(2)).join(' ')} at the start${m.loadAverageAtEnd ? `, ${m.loadAverageAtEnd.map((l) => l.toFixed(2)).join(' ')} at the end` : ''}; ` +
      `Node ${m.node}; sharp ${m.packages['sharp']} (libvips ${m.packages['@img/sharp-libvips-linux-x64']}); commit ${m.git.commit.slice(0, 10)}${m.git.changedFiles ? ` + ${m.git.changedFiles} changed files` : ''}. ` +
      `Run took ${(input.durationMs / 1000).toFixed(0)} s.`,
    '',
    'Median over repetitions; spread is ± half the range (min–max) relative to the median. Ratios are computed per repetition against a baseline measured right beside it, then summarised.',
    '',
    markdownTable(input.results),
    '',
  ];
  for (const result of input.results) {
    if (result.notes.length === 0 && !result.evidence?.length) continue;
    out.push(`## ${result.name}`, '', ...result.notes.map((n) => `- ${n}`), '');
    for (const evidence of result.evidence ?? []) out.push('```', evidence, '```', '');
  }
  if (input.failures.length > 0)
    out.push('## Scenarios that did not run to the end', '', ...input.failures.map((f) => `- ${f}`), '');
  return out.join('\n');
}

export async function writeResults(
  input: Parameters<typeof markdownReport>[0],
): Promise<{ json: string; markdown: string }> {
  const dir = join(workspaceRoot, 'bench/results');
  await mkdir(dir, { recursive: true });
  const stamp = input.startedAt.toISOString().replace(/[:.]/g, '-');
  const json = join(dir, `${stamp}.json`);
  const markdown = join(dir, 'latest.md');
  const replacer = (_key: string, value: unknown) =>
    typeof value === 'bigint' ? Number(value) : value instanceof Set ? [...value] : value;
  await writeFile(
    json,
    JSON.stringify(
      {
        startedAt: input.startedAt,
        durationMs: input.durationMs,
        quick: input.options.quick,
        options: input.options,
        machine: input.machine,
        results: input.results,
        failures: input.failures,
      },
      replacer,
      2,
    ),
  );
  await writeFile(markdown, markdownReport(input));
  return { json, markdown };
}
