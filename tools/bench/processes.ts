import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export const workspaceRoot = resolve(import.meta.dirname, '../..');

/** Runs a TypeScript file of ours as its own process (the environment, tsx included, is inherited). */
function spawnScript(file: string, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file), ...args], {
    cwd: workspaceRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The first JSON line the child prints, or its output when it exits first. */
function firstJsonLine<T>(child: ChildProcess, timeoutMs: number): Promise<T> {
  return new Promise((resolveLine, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms:\n${err}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const complete = out.split('\n').slice(0, -1);
      const line = complete.find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolveLine(JSON.parse(line) as T);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before answering:\n${err}${out}`));
    });
  });
}

export interface BaselineServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts one of the baseline servers and waits for it to listen. */
export async function startBaselineServer(file: string, args: readonly string[]): Promise<BaselineServer> {
  const child = spawnScript(file, args);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const { listening } = await firstJsonLine<{ listening: number }>(child, 60_000);
    return {
      url: `http://127.0.0.1:${listening}`,
      pid: child.pid!,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Runs a script to completion and returns the JSON line it printed. */
export async function runScript<T>(file: string, args: readonly string[], timeoutMs: number): Promise<T> {
  const child = spawnScript(file, args);
  try {
    return await firstJsonLine<T>(child, timeoutMs);
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
  }
}

/** Resident set size of a process in bytes, from /proc (Linux). */
export async function rssBytes(
  pid: number,
): Promise<{ rss: number; hwm: number; anon: number; file: number; threads: number } | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    // RssAnon: heap, wasm and malloc'd memory; RssFile: mapped code (node, libvips, …).
    return {
      rss: kb('VmRSS'),
      hwm: kb('VmHWM'),
      anon: kb('RssAnon'),
      file: kb('RssFile'),
      threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN),
    };
  } catch {
    return null;
  }
}

export type Rss = NonNullable<Awaited<ReturnType<typeof rssBytes>>>;

/** Samples a process's RSS every `intervalMs` until stopped; returns the peak sample. */
export function sampleRss(pid: number, intervalMs = 50) {
  let peak: Rss = { rss: 0, hwm: 0, anon: 0, file: 0, threads: 0 };
  let samples = 0;
  const timer = setInterval(() => {
    void rssBytes(pid).then((r) => {
      if (r) {
        if (r.rss > peak.rss) peak = r;
        samples++;
      }
    });
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return { peak, samples };
    },
  };
}
