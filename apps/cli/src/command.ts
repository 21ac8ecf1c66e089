// What a command is and what it is given: the commands import this, and cli.ts imports the
// commands (so they never import cli.ts back).
import type { ParseArgsConfig } from 'node:util';
import type { Database } from '@framedesk/db';

export interface Io {
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: NodeJS.ReadableStream;
  out(line: string): void;
  err(line: string): void;
  /** Standard output as a stream, for commands that stream (`audit export`); else they go through `out`. */
  readonly stdout?: NodeJS.WritableStream;
}

export class UsageError extends Error {}

/** A failure the command has put in words for the operator: printed as it is, exit 1. */
export class CommandError extends Error {}

export interface CommandContext {
  readonly io: Io;
  readonly positionals: string[];
  readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  /** Opens the database on first use; commands that need none never connect. */
  db(): Database;
}

export interface Command {
  readonly usage: string;
  readonly options?: ParseArgsConfig['options'];
  readonly positionals: number;
  /** `positionals` is the least number: more may follow (`channel reasons set <channel> <reason>…`). */
  readonly variadic?: boolean;
  run(ctx: CommandContext): Promise<number | void>;
}
