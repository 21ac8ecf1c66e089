import { isId } from '@framedesk/domain';
import { createTusStore } from '@framedesk/storage';
import { type ErasureRequest, erasureService } from '@framedesk/lifecycle';
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
  readonly pending: number;
  readonly partials: number;
};

export const mediaEraseCommands: Record<string, Command> = {
  // Erasure requests (GDPR art. 17): media deleted at once, personal fields blanked, the row kept; recorded.
  'media erase': operatorCommand<Result>(
    USAGE,
    0,
    async (ctx) => {
      const request = requestOf(ctx);
      const { settings, storage, provider, bucket } = mediaContext(ctx.io.env);
      // Open resumable uploads: their partial file, where the API keeps it (S3 metadata read from the bucket).
      const tus = createTusStore(settings, { bucket, prefix: settings.REDIS_PREFIX, expirationMs: 0 });
      const erasure = erasureService({
        db: ctx.db(),
        storage,
        provider,
        actor: actor(),
        replayableHours: settings.IDEMPOTENCY_RETENTION_HOURS,
        dropPartial: (uploadId) => tus.discard(uploadId),
      });
      const dryRun = ctx.values['dry-run'] === true;
      const report = dryRun
        ? { ...(await erasure.count(request)), stopped: 0, providerSkipped: 0, pending: 0, partials: 0 }
        : await erasure.erase(request);
      return {
        dry_run: dryRun,
        submissions: report.submissions,
        objects: report.objects,
        bytes: report.bytes,
        provider_videos: report.providerVideos,
        stopped: report.stopped,
        provider_skipped: report.providerSkipped,
        pending: report.pending,
        partials: report.partials,
      };
    },
    (r) =>
      `${r.dry_run ? 'would erase' : 'erased'} ${r.submissions} frame${r.submissions === 1 ? '' : 's'}: ` +
      `${r.objects} stored object${r.objects === 1 ? '' : 's'} (${megabytes(r.bytes)}), ` +
      `${r.provider_videos} provider video${r.provider_videos === 1 ? '' : 's'}` +
      (r.stopped ? `; ${r.stopped} still in the pipeline or review were failed first` : '') +
      (r.partials
        ? `; ${r.partials} open upload${r.partials === 1 ? '' : 's'} and partial file${r.partials === 1 ? '' : 's'} dropped`
        : '') +
      (r.pending
        ? `; ${r.pending} provider cop${r.pending === 1 ? 'y' : 'ies'} NOT deleted yet: retried by every retention run until gone (doctor shows them)`
        : '') +
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
