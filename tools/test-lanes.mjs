// `npm test`'s schedule: every task of the suite (`project:target`) run by Nx, a few at a time,
// the longest first. `nx run-many` orders tasks by how many projects depend on theirs, so the
// apps' tests — the longest tasks — started last and ran alone at the end (CI, stop 49: the api's
// tests alone took the last 29 of 33.6 minutes). Here the known long tasks start first and the
// short ones fill the lanes around them (longest processing time first).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The suite's long tasks, longest first, from the clean clone of 2026-11-29 09:00 (minutes on the
 * 2-core machine, two lanes): api:test-reliability 14.1, workbench:e2e 10.8, api:test 6.7,
 * workspace:test 5.3 (production-path), cli:test 5.1, worker:test 4.2. Every other task follows,
 * in the order the projects are found. A task missing here only starts later: nothing breaks.
 */
const LONGEST_FIRST = [
  'api:test-reliability',
  'workbench:e2e',
  'api:test',
  'workspace:test',
  'cli:test',
  'worker:test',
  'workspace:lint-all',
  'workbench:test',
];

/** Every `project:target` of `targets`, read from the projects' project.json (apps, libs, tools). */
export function suiteTasks(root, targets) {
  const tasks = [];
  for (const group of ['apps', 'libs', 'tools']) {
    for (const dir of readdirSync(join(root, group), { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      let project;
      try {
        project = JSON.parse(readFileSync(join(root, group, dir.name, 'project.json'), 'utf8'));
      } catch {
        continue; // not a project
      }
      for (const target of targets) if (project.targets?.[target]) tasks.push(`${project.name}:${target}`);
    }
  }
  const rank = (task) => {
    const i = LONGEST_FIRST.indexOf(task);
    return i === -1 ? LONGEST_FIRST.length : i;
  };
  return tasks.sort((a, b) => rank(a) - rank(b));
}

/**
 * Runs `tasks` with `nx run`, `lanes` at a time, each line of output prefixed with its task, and
 * prints each task's time and outcome as it ends. Resolves to the tasks that failed.
 */
export async function runInLanes(tasks, { lanes, cwd, env }) {
  const queue = [...tasks];
  const failed = [];
  const started = Date.now();
  const minutes = (ms) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
  const runOne = (task) =>
    new Promise((resolve) => {
      const at = Date.now();
      console.log(`\n> nx run ${task} (at ${minutes(at - started)})`);
      const child = spawn('npx', ['nx', 'run', task, '--skip-nx-cache', '--outputStyle=stream-without-prefixes'], {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      for (const stream of [child.stdout, child.stderr]) {
        let rest = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) process.stdout.write(`${task}: ${line}\n`);
        });
        stream.on('end', () => rest && process.stdout.write(`${task}: ${rest}\n`));
      }
      child.on('exit', (code) => {
        const ok = code === 0;
        if (!ok) failed.push(task);
        console.log(`\n< ${task} ${ok ? 'passed' : `FAILED (exit ${code})`} in ${minutes(Date.now() - at)}`);
        resolve();
      });
    });
  const lane = async () => {
    for (let task = queue.shift(); task; task = queue.shift()) await runOne(task);
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  console.log(
    `\n${tasks.length} tasks in ${minutes(Date.now() - started)}, ${lanes} at a time; failed: ${failed.join(', ') || 'none'}`,
  );
  return failed;
}
