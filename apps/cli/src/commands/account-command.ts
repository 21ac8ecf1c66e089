import { userInfo } from 'node:os';
import { accountsService, type AccountsService } from '@framedesk/access';
import { isSlug, isDomainError } from '@framedesk/domain';
import { type Command, type CommandContext, UsageError } from '../command';

/** Who ran the command, as recorded beside each account change, retention change and erasure. */
export function actor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

export function slugArg(value: string | undefined, what: string): string {
  if (!value || !isSlug(value)) throw new UsageError(`"${value ?? ''}" is not a valid ${what} slug`);
  return value;
}

/**
 * An operator command: `--json` prints one JSON line, otherwise `text(result)`; every refusal
 * (unknown account or channel, bad value) is one line on stderr and exit 2. `exitCode` turns a
 * result into the exit status (0 by default).
 */
export function operatorCommand<T>(
  usage: string,
  positionals: number,
  run: (ctx: CommandContext) => Promise<T>,
  text: (result: T) => string,
  options: Command['options'] = {},
  exitCode: (result: T) => number = () => 0,
): Command {
  return {
    usage: `${usage} [--json]`,
    positionals,
    options: { ...options, json: { type: 'boolean' } },
    async run(ctx) {
      let result: T;
      try {
        result = await run(ctx);
      } catch (error) {
        if (isDomainError(error)) throw new UsageError(error.detail);
        throw error;
      }
      ctx.io.out(ctx.values['json'] ? JSON.stringify(result) : text(result));
      return exitCode(result);
    },
  };
}

/** An account command: an operator command given the accounts service. */
export function accountCommand<T>(
  usage: string,
  positionals: number,
  run: (accounts: AccountsService, ctx: CommandContext) => Promise<T>,
  text: (result: T) => string,
  options: Command['options'] = {},
): Command {
  return operatorCommand(usage, positionals, (ctx) => run(accountsService(ctx.db(), actor()), ctx), text, options);
}
