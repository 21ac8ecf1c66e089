import type { Command } from '../command';
import { UsageError } from '../command';
import { accountCommand, slugArg } from './account-command';
import { durationArg } from './args';

const channelChange = (allowed: boolean) =>
  accountCommand(
    `agent channels ${allowed ? 'add' : 'remove'} <agent> <channel>`,
    2,
    (accounts, { positionals }) =>
      accounts.setAgentChannel(slugArg(positionals[0], 'agent'), slugArg(positionals[1], 'channel'), allowed),
    (r) =>
      r.changed
        ? `${r.agent} ${allowed ? 'may now post to' : 'may no longer post to'} ${r.channel}`
        : `${r.agent} ${allowed ? 'already may' : 'already may not'} post to ${r.channel}`,
  );

export const agentAccountCommands: Record<string, Command> = {
  'agent disable': accountCommand(
    'agent disable <agent>',
    1,
    (accounts, { positionals }) => accounts.setAgentDisabled(slugArg(positionals[0], 'agent'), true),
    (r) => `disabled agent ${r.agent}; its keys are refused with 403 forbidden`,
  ),
  'agent enable': accountCommand(
    'agent enable <agent>',
    1,
    (accounts, { positionals }) => accounts.setAgentDisabled(slugArg(positionals[0], 'agent'), false),
    (r) => `enabled agent ${r.agent}`,
  ),
  'agent list': accountCommand(
    'agent list',
    0,
    (accounts) => accounts.listAgents(),
    (rows) =>
      ['AGENT                DISABLED                  CHANNELS / ACTIVE KEYS']
        .concat(
          rows.map(
            (a) =>
              `${a.agent.padEnd(20)} ${(a.disabled_at ?? '-').padEnd(25)} ${a.channels.join(',') || '-'} / ${a.active_keys.join(',') || '-'}`,
          ),
        )
        .join('\n'),
  ),
  'agent channels add': channelChange(true),
  'agent channels remove': channelChange(false),
  'channel list': accountCommand(
    'channel list',
    0,
    (accounts) => accounts.listChannels(),
    (rows) =>
      ['CHANNEL              AGENTS  NAME']
        .concat(rows.map((c) => `${c.channel.padEnd(20)} ${String(c.agents).padEnd(7)} ${c.name}`))
        .join('\n'),
  ),
  'key rotate': accountCommand(
    'key rotate <key-prefix> [--grace 24h]',
    1,
    (accounts, { positionals, values }) => {
      const prefix = positionals[0]!;
      if (!/^fd_live_[0-9A-Za-z]{4,}$/.test(prefix))
        throw new UsageError('give the key prefix shown by "key list", e.g. fd_live_AbCd1234');
      return accounts.rotateKey(prefix, durationArg((values['grace'] as string | undefined) ?? '24h', '--grace'));
    },
    (r) =>
      `new API key (shown once, store it now): ${r.api_key}\n${r.old_prefix} keeps working until ${r.old_key_expires_at}`,
    { grace: { type: 'string' } },
  ),
};
