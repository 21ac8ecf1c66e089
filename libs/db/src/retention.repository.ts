import type { RetainedStatus, SubmissionStatus } from '@framedesk/domain';
import type { AccountChange } from './accounts.repository';
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
  readonly upload: { readonly provider: string; readonly providerRef: string | null } | null;
}

export const MEDIA_HOLDER_SELECT = {
  id: true,
  status: true,
  mediaType: true,
  createdAt: true,
  media: { select: { kind: true, name: true, bucket: true, key: true, byteSize: true } },
  upload: { select: { provider: true, providerRef: true } },
} as const satisfies Prisma.SubmissionSelect;

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
      await db.accountEvent.create({
        data: {
          subjectType: 'channel',
          subjectId: channelId,
          action: 'retention_set',
          actor: who.actor,
          createdAt: who.at,
          data: { before: view(before), after: view(after) },
        },
      });
      return after;
    },

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
     * After their objects are deleted: marks the frames purged (only those still in `statuses`,
     * not purged yet: a compare-and-set), drops their media rows, and appends one event each.
     * Returns the ids marked. Run in a transaction.
     */
    async markPurged(
      ids: readonly string[],
      input: {
        statuses: readonly SubmissionStatus[];
        at: Date;
        actor: Actor;
        reason: string;
        data: (id: string) => Record<string, unknown>;
      },
    ): Promise<string[]> {
      if (ids.length === 0) return [];
      const marked = await db.submission.updateManyAndReturn({
        where: { id: { in: [...ids] }, status: { in: [...input.statuses] }, purgedAt: null },
        data: { purgedAt: input.at },
        select: { id: true, status: true },
      });
      const done = marked.map((m) => m.id);
      if (done.length === 0) return [];
      await db.mediaObject.deleteMany({ where: { submissionId: { in: done } } });
      await db.submissionEvent.createMany({
        data: marked.map((m) => ({
          submissionId: m.id,
          type: 'media_purged',
          fromStatus: m.status,
          toStatus: m.status,
          actorType: input.actor.type,
          actorId: input.actor.id ?? null,
          reason: input.reason,
          data: input.data(m.id) as Prisma.InputJsonValue,
          createdAt: input.at,
        })),
      });
      return done;
    },
  };
}
