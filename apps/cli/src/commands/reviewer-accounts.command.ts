import type { Command } from '../command';
import { UsageError } from '../command';
import { accountCommand } from './account-command';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const when = (iso: string | null) => iso ?? '-';

export const reviewerAccountCommands: Record<string, Command> = {
  'reviewer disable': accountCommand(
    'reviewer disable <email>',
    1,
    (accounts, { positionals }) => accounts.setReviewerDisabled(positionals[0]!, true),
    (r) => `disabled reviewer ${r.email}; their sessions are ended`,
  ),
  'reviewer enable': accountCommand(
    'reviewer enable <email>',
    1,
    (accounts, { positionals }) => accounts.setReviewerDisabled(positionals[0]!, false),
    (r) => `enabled reviewer ${r.email}`,
  ),
  'reviewer set-password': accountCommand(
    'reviewer set-password <email> --password-stdin',
    1,
    async (accounts, { positionals, values, io }) => {
      // Never from argv: it would land in shell history and the process list.
      if (!values['password-stdin']) throw new UsageError('pass the password on standard input with --password-stdin');
      return accounts.setReviewerPassword(positionals[0]!, (await readAll(io.stdin)).replace(/\r?\n$/, ''));
    },
    (r) => `password set for ${r.email}; ${r.sessions_ended} session(s) ended`,
    { 'password-stdin': { type: 'boolean' } },
  ),
  'reviewer sessions revoke': accountCommand(
    'reviewer sessions revoke <email>',
    1,
    (accounts, { positionals }) => accounts.revokeReviewerSessions(positionals[0]!),
    (r) => `ended ${r.sessions_ended} session(s) of ${r.email}`,
  ),
  'reviewer list': accountCommand(
    'reviewer list',
    0,
    (accounts) => accounts.listReviewers(),
    (rows) =>
      ['EMAIL                               DISABLED                  SESSIONS']
        .concat(rows.map((r) => `${r.email.padEnd(35)} ${when(r.disabled_at).padEnd(25)} ${r.sessions}`))
        .join('\n'),
  ),
};
