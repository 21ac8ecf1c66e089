import type { ChannelRetentionRow, Database, MediaHolder, RetentionChange } from '@framedesk/db';
import {
  DomainError,
  formatRetention,
  parseRetention,
  RETAINED_STATUSES,
  type RetainedStatus,
  retentionCutoff,
  type RetentionPeriod,
} from '@framedesk/domain';
import {
  addDeleted,
  createPacer,
  type DeletedMedia,
  deleteStoredMedia,
  type MediaDeletionDeps,
  NO_MEDIA,
} from './media-purge';

export type RetentionDefaults = Readonly<Record<RetainedStatus, RetentionPeriod>>;

/** The RETENTION_* settings as periods (they are validated against the same pattern). */
export function retentionDefaults(settings: {
  readonly RETENTION_REJECTED: string;
  readonly RETENTION_FAILED: string;
  readonly RETENTION_PROMOTED: string;
}): RetentionDefaults {
  const period = (value: string) => parseRetention(value) ?? 'never';
  return {
    rejected: period(settings.RETENTION_REJECTED),
    failed: period(settings.RETENTION_FAILED),
    promoted: period(settings.RETENTION_PROMOTED),
  };
}

const OWN: Record<RetainedStatus, keyof ChannelRetentionRow> = {
  rejected: 'retentionRejected',
  failed: 'retentionFailed',
  promoted: 'retentionPromoted',
};

/** A channel's period for one status: its own when set, else the default. Unreadable values keep media. */
export function channelPeriod(
  channel: ChannelRetentionRow,
  status: RetainedStatus,
  defaults: RetentionDefaults,
): { period: RetentionPeriod; source: 'channel' | 'default' } {
  const own = channel[OWN[status]];
  if (own === null) return { period: defaults[status], source: 'default' };
  return { period: parseRetention(own) ?? 'never', source: 'channel' };
}

export interface RetentionDeps extends Omit<MediaDeletionDeps, 'pace'> {
  readonly db: Database;
  readonly defaults: RetentionDefaults;
  /** Frames per batch: one storage pass and one transaction. */
  readonly batchSize: number;
  readonly deletesPerSecond: number;
  readonly now?: () => Date;
  /** Replaces the pacer's clock (tests). */
  readonly clock?: Parameters<typeof createPacer>[1];
}

export interface RetentionReport extends DeletedMedia {
  readonly purged: number;
  readonly batches: number;
  /** False when the run stopped at its time limit with frames still past retention. */
  readonly complete: boolean;
  /** Frames purged per channel slug. */
  readonly channels: Readonly<Record<string, number>>;
  /** Frames whose deletion failed this run (a provider copy refused): still pending, tried again next run. */
  readonly pending: number;
}

/**
 * The retention purge (maintenance job): for each channel and final status with a period, the
 * frames unchanged for longer lose their media. Each batch is marked first — one transaction
 * that reads the channel's period as it is now (a correction applies from the next batch) and
 * compare-and-sets status, `purged_at` and "still past retention", with a `media_purged` event —
 * and only then are its objects and provider copies deleted and its media rows dropped. A marked
 * frame's status never changes again, so an operator's retry racing the purge is refused instead
 * of finding its original gone. A run killed between mark and deletion is finished by the next
 * (`unfinished` first); deleting twice is harmless.
 */
export function retentionService(deps: RetentionDeps) {
  const now = deps.now ?? (() => new Date());
  const clock = deps.clock ?? { now: () => Date.now(), sleep: (ms: number) => new Promise((r) => setTimeout(r, ms)) };

  /** Deletes what marked frames hold, then their rows; what was deleted, and how many stay pending. */
  async function finish(
    holders: readonly MediaHolder[],
    pace: () => Promise<void>,
  ): Promise<{ media: DeletedMedia; failed: number }> {
    const { deleted, failures } = await deleteStoredMedia({ ...deps, pace }, holders);
    await deps.db.transaction((repos) =>
      repos.retention.finishDeletion(
        holders.map((h) => h.id),
        failures,
      ),
    );
    return { media: [...deleted.values()].reduce(addDeleted, NO_MEDIA), failed: failures.size };
  }

  /** Marks one batch of a channel's frames in `status`, under the channel's period as it is now. */
  function markBatch(channelId: string, status: RetainedStatus, limit: number) {
    return deps.db.transaction(async (repos) => {
      const channel = await repos.retention.lockChannel(channelId);
      const period = channel ? channelPeriod(channel, status, deps.defaults).period : 'never';
      const before = retentionCutoff(period, now());
      if (!before) return { holders: [], stop: true };
      const candidates = await repos.retention.purgeCandidates({ channelId, status, before, limit });
      const holders = await repos.retention.markPurged(
        candidates.map((h) => h.id),
        {
          statuses: [status],
          before,
          at: now(),
          actor: { type: 'system' },
          reason: `retention: ${status} ${formatRetention(period)}`,
        },
      );
      return { holders, stop: candidates.length < limit || holders.length === 0 };
    });
  }

  return {
    async run(options: { maxMs: number }): Promise<RetentionReport> {
      const pace = createPacer(deps.deletesPerSecond, clock);
      let total: DeletedMedia = NO_MEDIA;
      let pending = 0;
      const finished = async (holders: readonly MediaHolder[]) => {
        const { media, failed } = await finish(holders, pace);
        total = addDeleted(total, media);
        pending += failed;
      };
      const startedAt = clock.now();
      let purged = 0;
      let batches = 0;
      const channels: Record<string, number> = {};
      const overTime = () => clock.now() - startedAt >= options.maxMs;
      // What was marked earlier and not all deleted (a run stopped half-way, a provider that
      // refused, an erasure interrupted): tried again, each frame once per run.
      for (let after: string | undefined; ;) {
        if (overTime()) return { ...total, purged, batches, complete: false, channels, pending };
        const due = await deps.db.repos.retention.pendingDeletions(deps.batchSize, after);
        if (due.length === 0) break;
        await finished(due);
        after = due.at(-1)!.id;
      }
      for (const channel of await deps.db.repos.retention.channels()) {
        for (const status of RETAINED_STATUSES) {
          for (;;) {
            if (overTime()) return { ...total, purged, batches, complete: false, channels, pending };
            const { holders, stop } = await markBatch(channel.id, status, deps.batchSize);
            if (holders.length > 0) {
              await finished(holders);
              purged += holders.length;
              channels[channel.slug] = (channels[channel.slug] ?? 0) + holders.length;
              batches++;
            }
            if (stop) break;
          }
        }
      }
      return { ...total, purged, batches, complete: true, channels, pending };
    },
  };
}

export type RetentionService = ReturnType<typeof retentionService>;

/** A channel's retention as operators read it: each final status's period, and whether it is the default. */
export type ChannelRetentionView = { readonly channel: string } & Readonly<
  Record<RetainedStatus, { readonly retention: string; readonly source: 'channel' | 'default' }>
>;

/** What a retention change would purge at once, per final status and in all. */
export type RetentionPreview = Readonly<Record<RetainedStatus | 'total', number>>;

/** `channel retention set`'s answer: the periods (as set, or as they would be), what they purge now, whether applied. */
export type RetentionSetResult = ChannelRetentionView & {
  readonly would_purge: RetentionPreview;
  readonly applied: boolean;
};

/** `channel retention set|show` (operators): per-channel periods, each change recorded with who and when. */
export function channelRetentionService(db: Database, defaults: RetentionDefaults, actor: string) {
  const view = (channel: ChannelRetentionRow): ChannelRetentionView => {
    const of = (status: RetainedStatus) => {
      const { period, source } = channelPeriod(channel, status, defaults);
      return { retention: formatRetention(period), source };
    };
    return { channel: channel.slug, rejected: of('rejected'), failed: of('failed'), promoted: of('promoted') };
  };

  /** Frames the channel's periods (as `row` has them) make due now: what the next purge run deletes. */
  async function preview(row: ChannelRetentionRow, at: Date): Promise<RetentionPreview> {
    const counts = await Promise.all(
      RETAINED_STATUSES.map(async (status) => {
        const before = retentionCutoff(channelPeriod(row, status, defaults).period, at);
        return before ? db.repos.retention.countPurgeable({ channelId: row.id, status, before }) : 0;
      }),
    );
    const [rejected, failed, promoted] = counts as [number, number, number];
    return { rejected, failed, promoted, total: rejected + failed + promoted };
  }

  return {
    async show(slug?: string) {
      const rows = slug ? [await db.repos.retention.channel(slug)] : await db.repos.retention.channels();
      if (rows[0] === null) throw new DomainError('not_found', `no channel ${slug}`);
      return (rows as ChannelRetentionRow[]).map(view);
    },
    /**
     * `value`: `<n>d`, `never`, or `default` (follow the RETENTION_* setting again). Counts what
     * the new periods would purge now; changes them only with `apply` (`--yes`).
     */
    async set(
      slug: string,
      change: Partial<Record<RetainedStatus, string>>,
      options: { apply: boolean },
    ): Promise<RetentionSetResult> {
      const parsed: RetentionChange = {};
      for (const [status, value] of Object.entries(change) as [RetainedStatus, string][]) {
        if (value !== 'default' && parseRetention(value) === null)
          throw new DomainError('validation_failed', `--${status} "${value}" is not a period such as 30d, 0d or never`);
        parsed[status] = value === 'default' ? null : value;
      }
      if (Object.keys(parsed).length === 0)
        throw new DomainError('validation_failed', 'give at least one of --rejected, --failed, --promoted');
      const channel = await db.repos.retention.channel(slug);
      if (!channel) throw new DomainError('not_found', `no channel ${slug}`);
      const proposed: ChannelRetentionRow = {
        ...channel,
        ...Object.fromEntries(Object.entries(parsed).map(([status, value]) => [OWN[status as RetainedStatus], value])),
      };
      const would_purge = await preview(proposed, new Date());
      if (!options.apply) return { ...view(proposed), would_purge, applied: false };
      const updated = await db.transaction((repos) =>
        repos.retention.setChannelRetention(channel.id, parsed, { actor, at: new Date() }),
      );
      return { ...view(updated), would_purge, applied: true };
    },
  };
}
