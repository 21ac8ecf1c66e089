// The CLI run in the test's own process (the same `run` main.ts calls), its lines captured.
import { Readable } from 'node:stream';
import { run } from '../src/cli';

export interface CliResult {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
  /** stdout parsed as one JSON document (the commands' `--json` output). */
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** `framedesk <args>` with exactly `env` as its environment and `stdin` as its input. */
export async function runCli(args: readonly string[], env: Record<string, string>, stdin = ''): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run([...args], {
    env,
    stdin: Readable.from([stdin]),
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err, json: () => JSON.parse(out.join('\n')) };
}
