import { channelReasonsService, type ChannelReasonsView } from '@framedesk/review';
import { type Command, type CommandContext, UsageError } from '../command';
import { actor, operatorCommand, slugArg } from './account-command';

const service = (ctx: CommandContext) => channelReasonsService(ctx.db(), actor());

const text = (view: ChannelReasonsView) =>
  [
    `${view.channel}: ${view.default ? 'the default reasons' : 'its own reasons'}`,
    ...view.reasons.map((r) => `  ${r}`),
  ].join('\n');

export const rejectReasonCommands: Record<string, Command> = {
  // Each channel's reject reasons; recorded in account_events (who, when, before/after).
  'channel reasons set': {
    ...operatorCommand(
      'channel reasons set <channel> <reason>… | --default',
      1,
      (ctx) => {
        const [slug, ...reasons] = ctx.positionals;
        const channel = slugArg(slug, 'channel');
        if (ctx.values['default'] && reasons.length > 0) {
          throw new UsageError('give reasons or --default, not both');
        }
        return service(ctx).set(channel, ctx.values['default'] ? null : reasons);
      },
      text,
      { default: { type: 'boolean' } },
    ),
    variadic: true,
  },
  'channel reasons show': operatorCommand(
    'channel reasons show <channel>',
    1,
    (ctx) => service(ctx).show(slugArg(ctx.positionals[0], 'channel')),
    text,
  ),
};
