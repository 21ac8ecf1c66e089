// The workbench's build measures what the queue's first load downloads, and the queue stays under
// its budget: the admin screens (Ops, People, Team, Policies) load only when an admin opens them
// (docs/workbench.md, "Budget"). Runs the build as `npm run build workbench` does.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_LOAD_BUDGET, type JavaScriptReport, QUEUE_SCREEN, REPORT_FILE } from '../javascript-budget.ts';

const root = resolve(import.meta.dirname, '../../..');
const ADMIN_SCREENS = ['OpsScreen', 'PeopleScreen', 'TeamScreen', 'PoliciesScreen'].map((s) => `src/screens/${s}.tsx`);

function build(out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    // As in production: the test runner's NODE_ENV=test would ship React's development build.
    const env = { ...process.env, NODE_ENV: 'production' };
    const child = spawn(process.execPath, ['tools/build.mjs', 'workbench', `--out=${out}`], { cwd: root, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

describe('the workbench build measures its JavaScript', () => {
  let out: string;
  let output: string;
  let report: JavaScriptReport;

  beforeAll(async () => {
    // Inside the repository, so the build resolves node_modules (tools/build.mjs, --out); dist/ is ignored.
    await mkdir(join(root, 'dist'), { recursive: true });
    out = await mkdtemp(join(root, 'dist', 'workbench-budget-'));
    const result = await build(out);
    output = result.output;
    if (result.code !== 0) throw new Error(`build failed:\n${output}`);
    report = JSON.parse(readFileSync(join(out, 'workbench', REPORT_FILE), 'utf8')) as JavaScriptReport;
  }, 300_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it(`keeps the queue's first load within ${FIRST_LOAD_BUDGET / 1000} kB gzipped, admin screens loading on demand`, () => {
    console.info('gzipped JavaScript (bytes):', JSON.stringify(report, null, 1));
    expect(output).toMatch(/workbench JavaScript, gzipped: first page [\d.]+ kB, queue [\d.]+ kB \(budget 200\.0 kB\)/);
    expect(report.budget).toBe(FIRST_LOAD_BUDGET);
    // The queue is its own chunk, and each admin screen one the first page does not load.
    expect(Object.keys(report.screens)).toEqual(expect.arrayContaining([QUEUE_SCREEN, ...ADMIN_SCREENS]));
    for (const screen of ADMIN_SCREENS) expect(report.screens[screen]).toBeGreaterThan(report.firstPage);
    expect(report.queue).toBeGreaterThan(report.firstPage);
    expect(report.queue).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
  });
});
