#!/usr/bin/env node
// `npm test`: the same set-up as `npm start`, then every project's typecheck, lint and tests
// (unit, integration against the real PostgreSQL and Redis, browser tests in chromium).
// Each test file makes its own database and Redis key prefix, so runs never see each other.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root, setup, testServicesEnv } from './setup.mjs';
import { runInLanes, suiteTasks } from './test-lanes.mjs';

await setup({ database: false });

// Tools the integration and browser tests drive: install them where we can, else say so.
const missing = [
  ['ffprobe', 'ffmpeg'],
  ['chromium', 'chromium'],
  ['docker-compose', 'docker-compose'],
  ['python3', 'python3'],
  // promtool and the Prometheus server: ops/ is tested with them (tools/workspace/ops.spec.ts,
  // apps/api/test/observability.int.spec.ts).
  ['promtool', 'prometheus'],
  // The engines organisations run past one machine, started by the tests themselves
  // (libs/testing/src/engines): PostgreSQL under Patroni behind HAProxy (issue 44), Redis under
  // Sentinel (46), Ceph's RADOS Gateway as a real S3 server (47). Installed once here, not by
  // each test file at the same time; their own services are kept from starting (policy-rc.d below).
  ['patroni', 'patroni'],
  ['etcd', 'etcd-server'],
  ['etcdctl', 'etcd-client'],
  ['haproxy', 'haproxy'],
  ['redis-sentinel', 'redis-sentinel'],
  ['ceph-mon', 'ceph-mon'],
  ['ceph-osd', 'ceph-osd'],
  ['radosgw', 'radosgw'],
  ['ceph', 'ceph-common'],
].filter(([command]) => spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0);
if (missing.length > 0) {
  const packages = missing.map(([, pkg]) => pkg);
  if (process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0) {
    console.log(`[test] installing ${packages.join(', ')} with apt`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    // A package's own service (etcd, haproxy, redis, ceph) must not start on the system's ports.
    const policy = '/usr/sbin/policy-rc.d';
    const ownPolicy = !existsSync(policy);
    if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    // As .ci/run: no recommended extras (prometheus would bring its node exporter, a daemon).
    const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
      stdio: 'inherit',
      env,
    });
    if (ownPolicy) rmSync(policy, { force: true });
    if (r.status !== 0) process.exit(r.status ?? 1);
  } else {
    console.error(
      `[test] missing: ${packages.join(', ')}. Install them (Debian: apt-get install ${packages.join(' ')}) and run npm test again.`,
    );
    process.exit(1);
  }
}

// The formatter first: a change that is not formatted fails in seconds, not after the suite.
if (process.argv.slice(2).length === 0) {
  const format = spawnSync('npx', ['prettier', '--check', '.', '--log-level', 'warn'], { cwd: root, stdio: 'inherit' });
  if (format.status !== 0) {
    console.error('[test] npm run format:check failed: run `npm run format` and commit the result.');
    process.exit(1);
  }
}

const results = join(root, 'test-results');
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });

const env = {
  ...process.env,
  NX_DAEMON: 'false',
  NX_TUI: 'false',
  ...testServicesEnv(),
};
/**
 * The whole suite: every project's tests, the api's reliability tests (a task of their own), the
 * workbench's browser tests, and one typecheck and one lint of the whole workspace
 * (tools/workspace/project.json: each file parsed and typed once). Each is an Nx task, run two at a
 * time, the longest first (test-lanes.mjs), so the apps' long tests no longer start last. Three at
 * a time was tried (clean clone, 2026-11-29 09:33): the two cores were saturated, every long task
 * ran longer (api:test 13m11s against 6m41s, the e2e 15m02s against 10m46s) and three drills
 * failed their load checks (no decision made in the load's time). FRAMEDESK_TEST_LANES sets another
 * count (a bigger machine). `npm test -- <target>…` runs those targets of every project with
 * `nx run-many` instead.
 */
const requested = process.argv.slice(2);
const codes = [];
if (requested.length > 0) {
  codes.push(
    await new Promise((resolve) => {
      const child = spawn(
        'npx',
        ['nx', 'run-many', '-t', ...requested, '--parallel=2', '--outputStyle=stream', '--skip-nx-cache'],
        { cwd: root, env, stdio: 'inherit' },
      );
      child.on('exit', (code) => resolve(code ?? 1));
    }),
  );
} else {
  const tasks = suiteTasks(root, ['typecheck-all', 'lint-all', 'test', 'test-reliability', 'e2e']);
  const lanes = Number(process.env['FRAMEDESK_TEST_LANES']) || 2;
  const failed = await runInLanes(tasks, { lanes, cwd: root, env });
  codes.push(failed.length > 0 ? 1 : 0);
}
const status = codes.find((code) => code !== 0) ?? 0;

// One closing line over every project's vitest report.
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
if (existsSync(results)) {
  for (const file of readdirSync(results).filter((f) => f.endsWith('.json'))) {
    const report = JSON.parse(readFileSync(join(results, file), 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    failures.push(...failedTests(report));
  }
}
// CI keeps only the tail of the output: name each failed test there, with its first message lines.
for (const failure of failures) console.log(failure);
if (status !== 0 && failed === 0) failed = 1; // a typecheck, lint or crashed run counts as a failure
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(status);

/** Each failed test of a vitest JSON report: its file, its name and the first lines of its error. */
function failedTests(report) {
  const lines = [];
  for (const file of report.testResults ?? []) {
    const name = relative(root, file.name ?? '');
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      lines.push(`\nFAILED ${name} > ${test.fullName}\n  ${firstLines((test.failureMessages ?? []).join('\n'))}`);
    }
    // A file that failed before running any test (an import error, a failed beforeAll).
    if ((file.assertionResults ?? []).length === 0 && file.status === 'failed') {
      lines.push(`\nFAILED ${name}\n  ${firstLines(String(file.message ?? ''))}`);
    }
  }
  return lines;
}

/** The first six lines of an error, indented under its FAILED line. */
function firstLines(text) {
  return text.split('\n').slice(0, 6).join('\n  ');
}
