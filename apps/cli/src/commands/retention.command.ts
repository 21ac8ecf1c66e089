import { loadSettings } from '@framedesk/config';
import { RETAINED_STATUSES, type RetainedStatus } from '@framedesk/domain';
import {
  type ChannelRetentionView,
  channelRetentionService,
  retentionDefaults,
  type RetentionSetResult,
} from '@framedesk/lifecycle';
import { type Command, type CommandContext, UsageError } from '../command';
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

const preview = (r: RetentionSetResult) =>
  `would purge now: ${r.would_purge.rejected} rejected, ${r.would_purge.failed} failed, ${r.would_purge.promoted} promoted ` +
  `(${r.would_purge.total} frame${r.would_purge.total === 1 ? '' : 's'}: their media are deleted at the next retention run)`;

export const retentionCommands: Record<string, Command> = {
  // How long final frames keep their media, per channel; recorded in account_events (who, when, before/after).
  // Shows first what the new periods would purge at once: applied only with --yes (--dry-run: the preview alone).
  'channel retention set': operatorCommand<RetentionSetResult & { readonly dry_run: boolean }>(
    'channel retention set <channel> [--rejected 30d] [--failed 7d] [--promoted never|default] (--yes | --dry-run)',
    1,
    async (ctx) => {
      const change: Partial<Record<RetainedStatus, string>> = {};
      for (const status of RETAINED_STATUSES) {
        const value = ctx.values[status];
        if (typeof value === 'string') change[status] = value;
      }
      const dryRun = ctx.values['dry-run'] === true;
      if (dryRun && ctx.values['yes'] === true) throw new UsageError('--yes applies, --dry-run only shows: give one');
      const result = await service(ctx).set(slugArg(ctx.positionals[0], 'channel'), change, {
        apply: !dryRun && ctx.values['yes'] === true,
      });
      return { ...result, dry_run: dryRun };
    },
    (r) =>
      [
        HEADER,
        line(r),
        preview(r),
        r.applied
          ? 'applied'
          : r.dry_run
            ? 'dry run: nothing changed'
            : 'NOT applied: check the count above, then run again with --yes',
      ].join('\n'),
    {
      rejected: { type: 'string' },
      failed: { type: 'string' },
      promoted: { type: 'string' },
      yes: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
    // Without --yes nothing changes: exit 1, so a script that forgot it does not go on as if it had.
    (r) => (r.applied || r.dry_run ? 0 : 1),
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
