import { isReviewerRole, type ReviewerRole } from '@framedesk/domain';
import type { Command } from '../command';
import { UsageError } from '../command';
import { accountCommand, slugArg } from './account-command';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const when = (iso: string | null) => iso ?? '-';

function roleArg(value: unknown, what: string): ReviewerRole {
  if (!isReviewerRole(value)) throw new UsageError(`${what} is admin or reviewer, not "${String(value ?? '')}"`);
  return value;
}

/** `--channels a,b`: slugs of existing channels. */
function channelsArg(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => slugArg(c, 'channel'));
}

const membershipChange = (member: boolean) =>
  accountCommand(
    `reviewer channels ${member ? 'add' : 'remove'} <email> <channel>`,
    2,
    (accounts, { positionals }) =>
      accounts.setReviewerChannel(positionals[0]!, slugArg(positionals[1], 'channel'), member),
    (r) =>
      r.changed
        ? `${r.email} ${member ? 'is now a member of' : 'is no longer a member of'} ${r.channel}`
        : `${r.email} ${member ? 'already is' : 'already is not'} a member of ${r.channel}`,
  );

export const reviewerAccountCommands: Record<string, Command> = {
  'reviewer create': accountCommand(
    'reviewer create <email> [--password-stdin] [--name NAME] [--role admin|reviewer] [--channels a,b]',
    1,
    async (accounts, { positionals, values, io }) => {
      const role = values['role'] === undefined ? undefined : roleArg(values['role'], '--role');
      const channels = channelsArg(values['channels']);
      // Never from argv: it would land in shell history and the process list. Without one the
      // account signs in through single sign-on (or an invite link from the People screen).
      const password = values['password-stdin'] ? (await readAll(io.stdin)).replace(/\r?\n$/, '') : undefined;
      const name = values['name'] as string | undefined;
      return accounts.createReviewer({
        email: positionals[0]!,
        channels,
        ...(password !== undefined ? { password } : {}),
        ...(role ? { role } : {}),
        ...(name ? { name } : {}),
      });
    },
    (r) =>
      `created reviewer ${r.email} (${r.role}; channels: ${r.channels.join(', ') || 'none'})` +
      // A reviewer sees only their channels' frames: say so while they have none.
      (r.role !== 'admin' && r.channels.length === 0
        ? `\n${r.email} will see no frames until it is given channels: ` +
          `reviewer channels add ${r.email} <channel>, or an admin on the People screen`
        : ''),
    {
      'password-stdin': { type: 'boolean' },
      name: { type: 'string' },
      role: { type: 'string' },
      channels: { type: 'string' },
    },
  ),
  'reviewer role': accountCommand(
    'reviewer role <email> admin|reviewer',
    2,
    (accounts, { positionals }) => accounts.setReviewerRole(positionals[0]!, roleArg(positionals[1], 'the role')),
    (r) => (r.changed ? `${r.email} is now ${r.role}` : `${r.email} already is ${r.role}`),
  ),
  'reviewer channels add': membershipChange(true),
  'reviewer channels remove': membershipChange(false),
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
      ['EMAIL                               ROLE      DISABLED                  SESSIONS  CHANNELS']
        .concat(
          rows.map(
            (r) =>
              `${r.email.padEnd(35)} ${r.role.padEnd(9)} ${when(r.disabled_at).padEnd(25)} ${String(r.sessions).padEnd(9)} ${r.channels.join(',') || (r.role === 'admin' ? '(all)' : '-')}`,
          ),
        )
        .join('\n'),
  ),
};
