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
 * A second API process on the same database, Redis prefix and storage, started with --cpu-prof;
 * `load` runs against it, then it is stopped (the profile is written on exit) and summarised,
 * counting only the samples taken while the load ran (not boot or shutdown).
 */
export async function profileApi(
  stack: Stack,
  load: (apiUrl: string, durationMs: number) => Promise<void>,
  durationMs: number,
): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'framedesk-bench-prof-'));
  const port = await freePort();
  // Node refuses --cpu-prof in NODE_OPTIONS, so this is startApp with the flag on the command line.
  const child = spawn(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--cpu-prof-interval=500',
      '--import',
      'tsx',
      join(workspaceRoot, 'apps/api/src/main.ts'),
    ],
    {
      cwd: workspaceRoot,
      env: { ...process.env, ...stack.env, API_PORT: String(port) },
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`, 60_000);
    await load(url, 1_500); // warm-up: lazy compilation and connection pools stay out of the window
    const started = performance.now();
    await load(url, durationMs);
    const loadEnded = performance.now();
    await stop('SIGTERM');
    const exitedAfterUs = (performance.now() - loadEnded) * 1000;
    const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
    if (!file) return ['no CPU profile was written (the API did not exit cleanly)'];
    // Kept beside the results, to open in Chrome DevTools (Performance → Load profile).
    const kept = join(
      workspaceRoot,
      'bench/results',
      `api-ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`,
    );
    await mkdir(dirname(kept), { recursive: true });
    await copyFile(join(dir, file), kept);
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    const toUs = profile.endTime - exitedAfterUs;
    return [...summarise(profile, toUs - (loadEnded - started) * 1000, toUs, 15), `profile: ${kept}`];
  } finally {
    await stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}
