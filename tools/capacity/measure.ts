// What the capacity scripts read from the machine: a process's CPU time, the bytes under a directory.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** CPU time (user + system) a process has used so far, in ms. */
export const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ = 100
};

export const bytesUnder = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
