// Once per vitest run, in its main process: a directory for the app bundles its test processes
// build (libs/testing `appBundle`), removed when the run ends. Directories of runs that were
// killed before their teardown (their process is gone) are removed at the next start.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const appsRoot = resolve(import.meta.dirname, '../node_modules/.cache/framedesk-test-apps');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default function setup(): () => void {
  mkdirSync(appsRoot, { recursive: true });
  for (const name of readdirSync(appsRoot)) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || !alive(pid)) rmSync(join(appsRoot, name), { recursive: true, force: true });
  }
  const dir = join(appsRoot, String(process.pid));
  process.env['FRAMEDESK_TEST_APPS_DIR'] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
