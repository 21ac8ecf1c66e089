import { parseArgs } from 'node:util';
import { ConfigError, loadSettings, SettingsError } from '@framedesk/config';
import { createDatabase, type Database } from '@framedesk/db';
import { isDomainError } from '@framedesk/domain';
import { type Command, type CommandContext, CommandError, type Io, UsageError } from './command';
import { agentAccountCommands } from './commands/agent-accounts.command';
import { agentCommands } from './commands/agents.command';
import { auditCommands } from './commands/audit.command';
import { configCommands } from './commands/config.command';
import { demoCommands } from './commands/demo.command';
import { mediaCommands } from './commands/media.command';
import { mediaEraseCommands } from './commands/media-erase.command';
import { mediaVerifyCommands } from './commands/media-verify.command';
import { doctorCommands } from './commands/doctor.command';
import { mcpCommands } from './commands/mcp.command';
import { policyCommands } from './commands/policy.command';
import { retentionCommands } from './commands/retention.command';
import { rejectReasonCommands } from './commands/reject-reasons.command';
import { reviewerAccountCommands } from './commands/reviewer-accounts.command';
import { submitCommands } from './commands/submit.command';

const COMMANDS: Record<string, Command> = {
  ...agentCommands,
  ...agentAccountCommands,
  ...reviewerAccountCommands,
  ...configCommands,
  ...demoCommands,
  ...submitCommands,
  ...mediaCommands,
  ...mediaEraseCommands,
  ...mediaVerifyCommands,
  ...retentionCommands,
  ...rejectReasonCommands,
  ...auditCommands,
  ...policyCommands,
  ...doctorCommands,
  ...mcpCommands,
};

function usage(): string {
  return ['usage: framedesk <command>', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');
}

export async function run(argv: string[], io: Io): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    io.out(usage());
    return argv.length === 0 ? 2 : 0;
  }
  // Most commands are two words ("agent create"); some one ("submit") or three ("reviewer sessions revoke").
  const words = [3, 2].find((n) => COMMANDS[argv.slice(0, n).join(' ')]) ?? 1;
  const command = COMMANDS[argv.slice(0, words).join(' ')];
  if (!command) {
    io.err(`framedesk: unknown command "${argv.slice(0, 2).join(' ')}"; run "framedesk help" for the list`);
    return 2;
  }
  let database: Database | undefined;
  try {
    const parsed = parseArgs({
      args: argv.slice(words),
      options: command.options ?? {},
      allowPositionals: true,
      strict: true,
    });
    const count = parsed.positionals.length;
    if (command.variadic ? count < command.positionals : count !== command.positionals) {
      throw new UsageError(`usage: framedesk ${command.usage}`);
    }
    const ctx: CommandContext = {
      io,
      positionals: parsed.positionals,
      values: parsed.values,
      db: () => {
        if (!database) {
          const settings = loadSettings(io.env);
          database = createDatabase({ url: settings.DATABASE_URL, poolSize: 2 });
        }
        return database;
      },
    };
    return (await command.run(ctx)) ?? 0;
  } catch (error) {
    io.err(`framedesk: ${describe(error, command)}`);
    return error instanceof UsageError || isArgError(error) ? 2 : 1;
  } finally {
    await database?.close();
  }
}

function isArgError(error: unknown): boolean {
  return error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}

function describe(error: unknown, command: Command): string {
  if (error instanceof UsageError || error instanceof CommandError) return error.message;
  if (isArgError(error)) return `${(error as Error).message}; usage: framedesk ${command.usage}`;
  if (isDomainError(error)) return error.detail;
  if (error instanceof ConfigError || error instanceof SettingsError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  if (/ECONNREFUSED|connect/i.test(message))
    return `cannot reach the database (${message.split('\n')[0]}); is PostgreSQL running and DATABASE_URL right?`;
  return message.split('\n')[0] ?? 'failed';
}
