import { createQueueProducer, createRedis, type QueueProducer, redisReady } from '@framedesk/queues';
import { MIN_GRACE_MS, mediaVerifyService, type VerifyProblem, type VerifyReport } from '@framedesk/lifecycle';
import { type Command, CommandError, UsageError } from '../command';
import { actor, operatorCommand, slugArg } from './account-command';
import { durationArg, megabytes } from './args';
import { mediaContext } from './media-context';

const problemsOf = (r: VerifyReport) => r.missing_objects + r.missing_variants + r.purged_with_media + r.orphans;

function describe(p: VerifyProblem): string {
  switch (p.type) {
    case 'missing_object':
      return `missing object   ${p.submission_id} ${p.kind} ${p.name} (${p.key})${p.repairable ? ', repairable' : ''}`;
    case 'missing_variants':
      return `missing variants ${p.submission_id} ${p.names.join(', ')}`;
    case 'purged_with_media':
      return `purged, has media ${p.submission_id} (${p.objects} objects)`;
    case 'orphan':
      return `orphan           ${p.key} (${megabytes(p.byte_size)}, ${p.last_modified})`;
  }
}

function text(r: VerifyReport): string {
  const lines = [
    `checked ${r.submissions_checked} frames and ${r.objects_checked} objects${r.orphans_checked ? '' : ' (orphans not looked for: only over the whole bucket)'}`,
    `${r.missing_objects} missing objects, ${r.missing_variants} frames missing variants, ${r.purged_with_media} purged frames holding media, ` +
      `${r.orphans} orphans (${megabytes(r.orphan_bytes)})${r.recent_unreferenced ? `; ${r.recent_unreferenced} newer unrecorded objects left alone` : ''}`,
    ...r.problems.slice(0, 20).map((p) => `  ${describe(p)}`),
    ...(r.problems.length > 20 ? [`  … ${problemsOf(r) - 20} more (--json lists up to 1000)`] : []),
  ];
  if (r.repair)
    lines.push(
      `repaired: ${r.repair.requeued} frames re-enqueued to render their variants, ${r.repair.orphans_deleted} orphans deleted ` +
        `(${megabytes(r.repair.orphan_bytes_deleted)}), ${r.repair.purged_media_deleted} objects of purged frames deleted; ` +
        `${r.unrepairable} cannot be repaired`,
    );
  else if (problemsOf(r) > 0) lines.push('run again with --repair to mend what can be mended');
  return lines.join('\n');
}

export const mediaVerifyCommands: Record<string, Command> = {
  // Rows ↔ objects, in batches. Exit 1 while something is wrong (with --repair: something it cannot mend).
  'media verify': operatorCommand<VerifyReport>(
    'media verify [--channel <slug>] [--repair] [--grace 24h]',
    0,
    async (ctx) => {
      const { values, io } = ctx;
      const channel = typeof values['channel'] === 'string' ? slugArg(values['channel'], 'channel') : undefined;
      const graceMs = durationArg(typeof values['grace'] === 'string' ? values['grace'] : '24h', '--grace');
      // Checked before Redis is asked for: a grace under an hour is a usage error, whatever else.
      if (graceMs < MIN_GRACE_MS)
        throw new UsageError(
          `--grace ${String(values['grace'])} is below the minimum of 1h: a younger object without a row may be an original whose row is about to commit`,
        );
      const { settings, config, storage, bucket } = mediaContext(io.env);
      const repair = values['repair'] === true;
      const redis = repair ? createRedis(settings, 'producer') : null;
      redis?.on('error', () => undefined); // said once, by redisReady below
      let queues: QueueProducer | undefined;
      try {
        if (redis) {
          await redisReady(redis, 10_000).catch((error: Error) => {
            throw new CommandError(
              `--repair needs Redis to re-enqueue frames, and it is not reachable (${error.message})`,
            );
          });
          queues = createQueueProducer(redis, settings.REDIS_PREFIX);
        }
        return await mediaVerifyService({
          db: ctx.db(),
          storage,
          bucket,
          imageVariants: config.delivery.vendor_image_variants,
          ...(queues ? { queues } : {}),
          actor: actor(),
        }).run({ ...(channel ? { channelSlug: channel } : {}), repair, graceMs });
      } finally {
        await queues?.close();
        redis?.disconnect();
      }
    },
    text,
    { channel: { type: 'string' }, repair: { type: 'boolean' }, grace: { type: 'string' } },
    (r) => (problemsOf(r) === 0 || (r.repair && r.unrepairable === 0) ? 0 : 1),
  ),
};
