import type { RetainedStatus, SubmissionStatus } from '@framedesk/domain';
import { type AccountChange, recordAccountEvent } from './accounts.repository';
import type { DbClient, Prisma } from './prisma';
import type { Actor } from './submissions.repository';

/** A channel's own retention per final status (`<n>d`, `never`); null follows the default. */
export interface ChannelRetentionRow {
  readonly id: string;
  readonly slug: string;
  readonly retentionRejected: string | null;
  readonly retentionFailed: string | null;
  readonly retentionPromoted: string | null;
}

export type RetentionChange = Partial<Record<RetainedStatus, string | null>>;

/** A submission whose media are about to be deleted: what is stored, and the provider's copy. */
export interface MediaHolder {
  readonly id: string;
  readonly status: SubmissionStatus;
  readonly mediaType: 'image' | 'video';
  readonly createdAt: Date;
  readonly media: readonly {
    readonly kind: string;
    readonly name: string;
    readonly bucket: string;
    readonly key: string;
    readonly byteSize: bigint;
  }[];
  readonly upload: {
    readonly id: string;
    readonly provider: string;
    readonly providerRef: string | null;
    readonly protocol: string;
    readonly completedAt: Date | null;
  } | null;
}

export const MEDIA_HOLDER_SELECT = {
  id: true,
  status: true,
  mediaType: true,
  createdAt: true,
  media: { select: { kind: true, name: true, bucket: true, key: true, byteSize: true } },
  upload: { select: { id: true, provider: true, providerRef: true, protocol: true, completedAt: true } },
} as const satisfies Prisma.SubmissionSelect;

/** What a purge is about to delete, recorded in its event. */
export function mediaSummary(holder: MediaHolder): { objects: number; bytes: number; provider_videos: number } {
  const stored = holder.media.filter((m) => m.kind !== 'external');
  return {
    objects: stored.length,
    bytes: stored.reduce((sum, m) => sum + Number(m.byteSize), 0),
    provider_videos: holder.upload?.providerRef && holder.upload.provider !== 'local' ? 1 : 0,
  };
}

const COLUMN: Record<RetainedStatus, 'retentionRejected' | 'retentionFailed' | 'retentionPromoted'> = {
  rejected: 'retentionRejected',
  failed: 'retentionFailed',
  promoted: 'retentionPromoted',
};

const RETENTION_SELECT = {
  id: true,
  slug: true,
  retentionRejected: true,
  retentionFailed: true,
  retentionPromoted: true,
} as const;

/** Per-channel retention, and the purge's reads and writes (its own file: the purge is its own concern). */
export function retentionRepository(db: DbClient) {
  return {
    channels: (): Promise<ChannelRetentionRow[]> =>
      db.channel.findMany({ orderBy: { slug: 'asc' }, select: RETENTION_SELECT }),

    channel: (slug: string): Promise<ChannelRetentionRow | null> =>
      db.channel.findUnique({ where: { slug }, select: RETENTION_SELECT }),

    /** Changes a channel's retention and records who did it in account_events. Run in a transaction. */
    async setChannelRetention(channelId: string, change: RetentionChange, who: AccountChange) {
      const before = await db.channel.findUniqueOrThrow({ where: { id: channelId }, select: RETENTION_SELECT });
      const data = Object.fromEntries(
        Object.entries(change).map(([status, value]) => [COLUMN[status as RetainedStatus], value]),
      );
      const after = await db.channel.update({ where: { id: channelId }, data, select: RETENTION_SELECT });
      const view = (row: ChannelRetentionRow) => ({
        rejected: row.retentionRejected,
        failed: row.retentionFailed,
        promoted: row.retentionPromoted,
      });
      await recordAccountEvent(db, { type: 'channel', id: channelId }, 'retention_set', who, {
        before: view(before),
        after: view(after),
      });
      return after;
    },

    /** How many frames `purgeCandidates` would find with no limit (`channel retention set`'s preview). */
    countPurgeable: (input: { channelId: string; status: RetainedStatus; before: Date }): Promise<number> =>
      db.submission.count({
        where: { channelId: input.channelId, status: input.status, purgedAt: null, updatedAt: { lt: input.before } },
      }),

    /** Frames of one channel and final status, media not yet purged, unchanged since `before`; oldest first. */
    purgeCandidates: (input: {
      channelId: string;
      status: RetainedStatus;
      before: Date;
      limit: number;
    }): Promise<MediaHolder[]> =>
      db.submission.findMany({
        where: { channelId: input.channelId, status: input.status, purgedAt: null, updatedAt: { lt: input.before } },
        orderBy: { updatedAt: 'asc' },
        take: input.limit,
        select: MEDIA_HOLDER_SELECT,
      }),

    /**
     * The channel's retention as it is now, its row held (FOR SHARE) until the caller's
     * transaction ends: a `channel retention set` waits for a purge batch being marked, and the
     * next batch reads the new periods. Run in a transaction.
     */
    async lockChannel(channelId: string): Promise<ChannelRetentionRow | null> {
      const rows = await db.$queryRaw<ChannelRetentionRow[]>`
        SELECT id, slug, retention_rejected AS "retentionRejected", retention_failed AS "retentionFailed",
               retention_promoted AS "retentionPromoted"
          FROM channels WHERE id = ${channelId} FOR SHARE`;
      return rows[0] ?? null;
    },

    /**
     * Marks the frames purged before anything is deleted — a compare-and-set on the status, on
     * `purged_at` still null and, when `before` is given, on the frame still being past its
     * retention — and appends one `media_purged` event each. From then on no status change
     * applies to them (an operator's retry is refused), and their media rows say what is left
     * to delete (`dropMedia` once deleted). Returns what the marked frames hold. Run in a transaction.
     */
    async markPurged(
      ids: readonly string[],
      input: {
        statuses: readonly SubmissionStatus[];
        before?: Date;
        at: Date;
        actor: Actor;
        reason: string;
      },
    ): Promise<MediaHolder[]> {
      if (ids.length === 0) return [];
      const marked = await db.submission.updateManyAndReturn({
        where: {
          id: { in: [...ids] },
          status: { in: [...input.statuses] },
          purgedAt: null,
          ...(input.before ? { updatedAt: { lt: input.before } } : {}),
        },
        data: { purgedAt: input.at, deletionPendingSince: input.at },
        select: { id: true },
      });
      if (marked.length === 0) return [];
      const holders = await db.submission.findMany({
        where: { id: { in: marked.map((m) => m.id) } },
        orderBy: { updatedAt: 'asc' },
        select: MEDIA_HOLDER_SELECT,
      });
      await db.submissionEvent.createMany({
        data: holders.map((h) => ({
          submissionId: h.id,
          type: 'media_purged',
          fromStatus: h.status,
          toStatus: h.status,
          actorType: input.actor.type,
          actorId: input.actor.id ?? null,
          reason: input.reason,
          data: mediaSummary(h) as Prisma.InputJsonValue,
          createdAt: input.at,
        })),
      });
      return holders;
    },

    /**
     * Frames whose media were marked for deletion and are not all deleted yet (a run stopped
     * between its mark and its deletions, a provider that refused): in id order, after `afterId`.
     */
    pendingDeletions: (limit: number, afterId?: string): Promise<MediaHolder[]> =>
      db.submission.findMany({
        where: { deletionPendingSince: { not: null }, ...(afterId ? { id: { gt: afterId } } : {}) },
        orderBy: { id: 'asc' },
        take: limit,
        select: MEDIA_HOLDER_SELECT,
      }),

    /**
     * Locks a frame's row for the rest of the caller's transaction and says whether its media may
     * still be recorded: null when there is no such frame. A purge and an erasure mark the row
     * (under the same lock) before they read what to delete. Run in a transaction.
     */
    async lockForMedia(id: string): Promise<{ status: SubmissionStatus; purged: boolean; erased: boolean } | null> {
      const rows = await db.$queryRaw<{ status: SubmissionStatus; purged: boolean; erased: boolean }[]>`
        SELECT status::text AS status, purged_at IS NOT NULL AS purged, erased_at IS NOT NULL AS erased
          FROM submissions WHERE id = ${id} FOR UPDATE`;
      return rows[0] ?? null;
    },

    /** How many frames wait for their media to be deleted, since when, and the latest reason a try failed (`doctor`). */
    async pendingCount(): Promise<{ frames: number; oldest: Date | null; lastError: string | null }> {
      const [frames, oldest, failed] = await Promise.all([
        db.submission.count({ where: { deletionPendingSince: { not: null } } }),
        db.submission.findFirst({
          where: { deletionPendingSince: { not: null } },
          orderBy: { deletionPendingSince: 'asc' },
          select: { deletionPendingSince: true },
        }),
        db.submission.findFirst({
          where: { deletionPendingSince: { not: null }, deletionError: { not: null } },
          orderBy: { updatedAt: 'desc' },
          select: { id: true, deletionError: true },
        }),
      ]);
      return {
        frames,
        oldest: oldest?.deletionPendingSince ?? null,
        lastError: failed ? `${failed.id}: ${failed.deletionError}` : null,
      };
    },

    /**
     * After a marked frame's deletions: its media rows go (their objects are deleted), and it is
     * no longer pending unless a deletion failed (`failures`: why, per id), which is recorded
     * for the next try and for `doctor`. Only frames marked purged are touched.
     */
    async finishDeletion(ids: readonly string[], failures: ReadonlyMap<string, string>): Promise<void> {
      if (ids.length === 0) return;
      const marked = { id: { in: [...ids] }, purgedAt: { not: null } } satisfies Prisma.SubmissionWhereInput;
      await db.mediaObject.deleteMany({ where: { submission: marked } });
      const done = ids.filter((id) => !failures.has(id));
      if (done.length > 0)
        await db.submission.updateMany({
          where: { ...marked, id: { in: done } },
          data: { deletionPendingSince: null, deletionError: null },
        });
      for (const [id, error] of failures)
        await db.submission.updateMany({ where: { ...marked, id }, data: { deletionError: error.slice(0, 500) } });
    },
  };
}
