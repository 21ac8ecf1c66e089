import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks drive the real processes, as the end-to-end tests do.
import { freePort, type Stack, waitForHttp } from '@framedesk/testing';
import { workspaceRoot } from './processes';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a sample's code lives: a package, one of our libs or apps, Node itself, or V8's pseudo-frames. */
function owner(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const ours = /\/(libs|apps)\/([^/]+)\//.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.startsWith('wasm://')) return 'wasm (Prisma query compiler)';
  return url;
}

/** Self time by owner and by function over the samples taken in [fromUs, toUs] of the profile. */
function summarise(profile: CpuProfile, fromUs: number, toUs: number, top: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Native and Node-internal frames are charged to the nearest caller that is a package or ours.
  const responsible = (id: number): string | null => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)?.callFrame.url ?? '';
      if (url.includes('/node_modules/') || /\/(libs|apps)\//.test(url) || url.startsWith('wasm://'))
        return owner(url, '');
    }
    return null;
  };
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (t < fromUs || t > toUs) return;
    const node = byId.get(id);
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const own = owner(url, functionName);
    const who = responsible(id) ?? own;
    byOwner.set(who, (byOwner.get(who) ?? 0) + delta);
    const fn = `${functionName || '(anonymous)'} ${own}${url && !url.startsWith('node:') ? `:${lineNumber + 1}` : ''}${who !== own ? ` ← ${who}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
    total += delta;
  });
  const pct = (v: number) => `${((v / total) * 100).toFixed(1)}%`;
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `main-thread samples over ${(total / 1e6).toFixed(1)} s of load:`,
    `  by owner (native and Node frames charged to their nearest package or lib caller): ${sorted(byOwner)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}`,
    '  top functions (self time):',
    ...sorted(byFunction).map(([k, v]) => `    ${pct(v).padStart(6)}  ${k}`),
  ];
}

/**
 * One of our apps as an extra process on the stack's database, Redis prefix and storage, started
 * with --cpu-prof (Node refuses it in NODE_OPTIONS, so this is startApp with the flag on the
 * command line). `during` runs while it is up and returns when the work to profile begins and
 * ends; then the process is stopped (the profile is written on exit), kept beside the results
 * and summarised over that window only (not boot or shutdown).
 */
async function profileApp(
  stack: Stack,
  app: 'api' | 'worker',
  label: string,
  env: Record<string, string>,
  during: () => Promise<{ startedMs: number; endedMs: number }>,
): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'framedesk-bench-prof-'));
  const child = spawn(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--cpu-prof-interval=500',
      '--import',
      'tsx',
      join(workspaceRoot, `apps/${app}/src/main.ts`),
    ],
    { cwd: workspaceRoot, env: { ...process.env, ...stack.env, ...env }, stdio: 'ignore' },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    const { startedMs, endedMs } = await during();
    await stop('SIGTERM');
    const exitedAfterUs = (performance.now() - endedMs) * 1000;
    const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
    if (!file) return [`no CPU profile was written (the ${app} did not exit cleanly)`];
    // Kept beside the results, to open in Chrome DevTools (Performance → Load profile).
    const kept = join(
      workspaceRoot,
      'bench/results',
      `${label}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`,
    );
    await mkdir(dirname(kept), { recursive: true });
    await copyFile(join(dir, file), kept);
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    const toUs = profile.endTime - exitedAfterUs;
    return [...summarise(profile, toUs - (endedMs - startedMs) * 1000, toUs, 15), `profile: ${kept}`];
  } finally {
    await stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/** A second API process under `load` (after a warm-up), profiled over the load. */
export async function profileApi(
  stack: Stack,
  load: (apiUrl: string, durationMs: number) => Promise<void>,
  durationMs: number,
): Promise<string[]> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return profileApp(stack, 'api', 'api-ingest', { API_PORT: String(port) }, async () => {
    await waitForHttp(`${url}/healthz`, 60_000);
    await load(url, 1_500); // warm-up: lazy compilation and connection pools stay out of the window
    const startedMs = performance.now();
    await load(url, durationMs);
    return { startedMs, endedMs: performance.now() };
  });
}

/** A worker started once `work` waits in its queue, profiled from ready until `settled` resolves. */
export async function profileWorker(stack: Stack, settled: () => Promise<void>): Promise<string[]> {
  const port = await freePort();
  return profileApp(stack, 'worker', 'worker-pipeline', { WORKER_HEALTH_PORT: String(port) }, async () => {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000);
    const startedMs = performance.now();
    await settled();
    return { startedMs, endedMs: performance.now() };
  });
}
