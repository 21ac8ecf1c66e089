import { loadSettings } from '@framedesk/config';
import { RETAINED_STATUSES, type RetainedStatus } from '@framedesk/domain';
import { type ChannelRetentionView, channelRetentionService, retentionDefaults } from '@framedesk/submissions';
import type { Command, CommandContext } from '../command';
import { actor, operatorCommand, slugArg } from './account-command';

const service = (ctx: CommandContext) =>
  channelRetentionService(ctx.db(), retentionDefaults(loadSettings(ctx.io.env)), actor());

const line = (view: ChannelRetentionView) =>
  `${view.channel.padEnd(20)} ` +
  RETAINED_STATUSES.map((status) => {
    const { retention, source } = view[status];
    return `${`${retention}${source === 'default' ? ' (default)' : ''}`.padEnd(18)}`;
  }).join(' ');

const HEADER = `${'CHANNEL'.padEnd(20)} ${RETAINED_STATUSES.map((s) => s.toUpperCase().padEnd(18)).join(' ')}`;

export const retentionCommands: Record<string, Command> = {
  // How long final frames keep their media, per channel; recorded in account_events (who, when, before/after).
  'channel retention set': operatorCommand(
    'channel retention set <channel> [--rejected 30d] [--failed 7d] [--promoted never|default]',
    1,
    (ctx) => {
      const change: Partial<Record<RetainedStatus, string>> = {};
      for (const status of RETAINED_STATUSES) {
        const value = ctx.values[status];
        if (typeof value === 'string') change[status] = value;
      }
      return service(ctx).set(slugArg(ctx.positionals[0], 'channel'), change);
    },
    (view) => `${HEADER}\n${line(view)}`,
    { rejected: { type: 'string' }, failed: { type: 'string' }, promoted: { type: 'string' } },
  ),
  'channel retention show': operatorCommand(
    'channel retention show [--channel <slug>]',
    0,
    (ctx) => {
      const slug = ctx.values['channel'];
      return service(ctx).show(typeof slug === 'string' ? slugArg(slug, 'channel') : undefined);
    },
    (views) => [HEADER, ...views.map(line)].join('\n'),
    { channel: { type: 'string' } },
  ),
};
