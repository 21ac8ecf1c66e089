import { isId } from '@framedesk/domain';
import { type ErasureRequest, erasureService } from '@framedesk/submissions';
import { type Command, type CommandContext, UsageError } from '../command';
import { actor, operatorCommand, slugArg } from './account-command';
import { dateArg, megabytes } from './args';
import { mediaContext } from './media-context';

const USAGE = 'media erase (--submission <id> | --agent <slug> [--channel <slug>] [--before <date>]) [--dry-run]';

function requestOf({ values }: CommandContext): ErasureRequest {
  const submission = values['submission'];
  const agent = values['agent'];
  if (typeof submission === 'string') {
    if (agent !== undefined || values['channel'] !== undefined || values['before'] !== undefined)
      throw new UsageError('--submission erases one frame: give it alone, or use --agent with --channel/--before');
    if (!isId('submission', submission)) throw new UsageError(`"${submission}" is not a submission id (sub_…)`);
    return { submissionId: submission };
  }
  if (typeof agent !== 'string') throw new UsageError(`usage: framedesk ${USAGE}`);
  const channel = values['channel'];
  const before = values['before'];
  return {
    agentSlug: slugArg(agent, 'agent'),
    ...(typeof channel === 'string' ? { channelSlug: slugArg(channel, 'channel') } : {}),
    ...(typeof before === 'string' ? { before: dateArg(before, '--before') } : {}),
  };
}

type Result = {
  readonly dry_run: boolean;
  readonly submissions: number;
  readonly objects: number;
  readonly bytes: number;
  readonly provider_videos: number;
  readonly stopped: number;
  readonly provider_skipped: number;
};

export const mediaEraseCommands: Record<string, Command> = {
  // Erasure requests (GDPR art. 17): media deleted at once, personal fields blanked, the row kept; recorded.
  'media erase': operatorCommand<Result>(
    USAGE,
    0,
    async (ctx) => {
      const request = requestOf(ctx);
      const { settings, storage, provider } = mediaContext(ctx.io.env);
      const erasure = erasureService({
        db: ctx.db(),
        storage,
        provider,
        actor: actor(),
        replayableHours: settings.IDEMPOTENCY_RETENTION_HOURS,
      });
      const dryRun = ctx.values['dry-run'] === true;
      const report = dryRun
        ? { ...(await erasure.count(request)), stopped: 0, providerSkipped: 0 }
        : await erasure.erase(request);
      return {
        dry_run: dryRun,
        submissions: report.submissions,
        objects: report.objects,
        bytes: report.bytes,
        provider_videos: report.providerVideos,
        stopped: report.stopped,
        provider_skipped: report.providerSkipped,
      };
    },
    (r) =>
      `${r.dry_run ? 'would erase' : 'erased'} ${r.submissions} frame${r.submissions === 1 ? '' : 's'}: ` +
      `${r.objects} stored object${r.objects === 1 ? '' : 's'} (${megabytes(r.bytes)}), ` +
      `${r.provider_videos} provider video${r.provider_videos === 1 ? '' : 's'}` +
      (r.stopped ? `; ${r.stopped} still in the pipeline or review were failed first` : '') +
      (r.provider_skipped ? `; ${r.provider_skipped} provider copies NOT deleted (made with another provider)` : '') +
      (r.dry_run ? '\nnothing changed; run again without --dry-run to erase' : ''),
    {
      submission: { type: 'string' },
      agent: { type: 'string' },
      channel: { type: 'string' },
      before: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
  ),
};
