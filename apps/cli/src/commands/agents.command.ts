import { accountsService } from '@framedesk/access';
import { DomainError, isSlug } from '@framedesk/domain';
import { type Command, UsageError } from '../command';
import { actor } from './account-command';

function slug(value: string | undefined, what: string): string {
  if (!value || !isSlug(value))
    throw new UsageError(
      `"${value ?? ''}" is not a valid ${what} slug (lowercase letters, digits and single dashes, at most 64)`,
    );
  return value;
}

export const agentCommands: Record<string, Command> = {
  'channel create': {
    usage: 'channel create <slug> [--name NAME]',
    positionals: 1,
    options: { name: { type: 'string' } },
    async run({ positionals, values, db, io }) {
      const { channel, created } = await db().repos.channels.ensure(
        slug(positionals[0], 'channel'),
        values['name'] as string | undefined,
      );
      io.out(created ? `created channel ${channel.slug}` : `channel ${channel.slug} already exists`);
    },
  },

  'agent create': {
    usage: 'agent create <slug> --channel <slug> [--channel <slug>…] [--json]',
    positionals: 1,
    options: { channel: { type: 'string', multiple: true }, json: { type: 'boolean' }, name: { type: 'string' } },
    async run({ positionals, values, db, io }) {
      const agentSlug = slug(positionals[0], 'agent');
      const channels = (values['channel'] as string[] | undefined) ?? [];
      if (channels.length === 0) throw new UsageError('an agent needs at least one --channel <slug>');
      channels.forEach((c) => slug(c, 'channel'));
      // The agent, its channels and its first key exist together or not at all, each recorded.
      const created = await accountsService(db(), actor()).createAgent(
        agentSlug,
        channels,
        values['name'] as string | undefined,
      );
      if (values['json']) io.out(JSON.stringify(created));
      else
        io.out(
          `created agent ${created.agent} on ${channels.join(', ')}\nAPI key (shown once, store it now): ${created.api_key}`,
        );
    },
  },

  'key create': {
    usage: 'key create <agent> [--json]',
    positionals: 1,
    options: { json: { type: 'boolean' } },
    async run({ positionals, values, db, io }) {
      const issued = await accountsService(db(), actor()).issueKey(slug(positionals[0], 'agent'));
      if (values['json']) io.out(JSON.stringify(issued));
      else io.out(`API key for ${issued.agent} (shown once, store it now): ${issued.api_key}`);
    },
  },

  'key list': {
    usage: 'key list <agent>',
    positionals: 1,
    async run({ positionals, db, io }) {
      const agent = await db().repos.agents.findBySlug(slug(positionals[0], 'agent'));
      if (!agent) throw new DomainError('not_found', `no agent ${positionals[0]}`);
      const keys = await db().repos.apiKeys.listForAgent(agent.id);
      io.out(
        ['PREFIX              CREATED                   LAST USED                 REVOKED']
          .concat(
            keys.map((k) => [k.prefix.padEnd(19), iso(k.createdAt), iso(k.lastUsedAt), iso(k.revokedAt)].join(' ')),
          )
          .join('\n'),
      );
    },
  },

  'key revoke': {
    usage: 'key revoke <key-prefix>',
    positionals: 1,
    async run({ positionals, db, io }) {
      const prefix = positionals[0]!;
      if (!/^fd_live_[0-9A-Za-z]{4,}$/.test(prefix))
        throw new UsageError('give the key prefix shown by "key list", e.g. fd_live_AbCd1234');
      const { revoked } = await accountsService(db(), actor()).revokeKey(prefix);
      io.out(`revoked ${revoked}`);
    },
  },
};

const iso = (date: Date | null) => (date ? date.toISOString() : '-').padEnd(25);
