import { readFile } from 'node:fs/promises';

// Linux reports process CPU in clock ticks; USER_HZ is 100 on every mainstream kernel build.
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms; null when it is gone. */
export async function processCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may contain spaces, closed by the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
  } catch {
    return null;
  }
}

/** Busy and total CPU time of the whole machine so far, in ms (all cores). */
export async function machineCpuMs(): Promise<{ busy: number; total: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: ((total - idle) / TICKS_PER_SECOND) * 1000, total: (total / TICKS_PER_SECOND) * 1000 };
}

/** CPU used by `pids` and by the machine while `work` runs. */
export async function measureCpu<T>(
  pids: readonly number[],
  work: () => Promise<T>,
): Promise<{ result: T; processMs: number[]; machineBusyShare: number; wallMs: number }> {
  const before = await Promise.all(pids.map(processCpuMs));
  const machineBefore = await machineCpuMs();
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const after = await Promise.all(pids.map(processCpuMs));
  const machineAfter = await machineCpuMs();
  return {
    result,
    processMs: pids.map((_, i) => (after[i] ?? Number.NaN) - (before[i] ?? Number.NaN)),
    machineBusyShare: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
    wallMs,
  };
}
