import type { SubmissionStatus } from '@framedesk/domain';
import { type AccountChange, recordAccountEvent } from './accounts.repository';
import type { DbClient, Prisma } from './prisma';

/** A submission with the media rows the consistency check compares against storage. */
export interface VerifiedSubmission {
  readonly id: string;
  readonly status: SubmissionStatus;
  readonly mediaType: 'image' | 'video';
  readonly purgedAt: Date | null;
  readonly media: readonly {
    readonly kind: string;
    readonly name: string;
    readonly bucket: string;
    readonly key: string;
  }[];
}

/** Reads of `media verify`: rows in id order, and the keys recorded for a set of submissions. */
export function mediaVerifyRepository(db: DbClient) {
  return {
    /** Submissions after `afterId` (up to `toId`) in id order (random ids: a page from a random id is a random sample). */
    submissions: (input: {
      channelId?: string;
      afterId?: string;
      toId?: string;
      limit: number;
    }): Promise<VerifiedSubmission[]> =>
      db.submission.findMany({
        where: {
          ...(input.channelId ? { channelId: input.channelId } : {}),
          ...(input.afterId || input.toId
            ? { id: { ...(input.afterId ? { gt: input.afterId } : {}), ...(input.toId ? { lte: input.toId } : {}) } }
            : {}),
        },
        orderBy: { id: 'asc' },
        take: input.limit,
        select: {
          id: true,
          status: true,
          mediaType: true,
          purgedAt: true,
          media: { select: { kind: true, name: true, bucket: true, key: true } },
        },
      }),

    /** Drops every media row of a submission (media found on a purged frame, once deleted). */
    async deleteMediaRows(submissionId: string): Promise<number> {
      return (await db.mediaObject.deleteMany({ where: { submissionId } })).count;
    },

    /**
     * The audit line of what `media verify --repair` is about to delete (account_events): orphans
     * of a bucket (subject `bucket`), or the media left on a purged frame (subject `submission`).
     */
    recordRepair: (
      subject: { type: 'bucket' | 'submission'; id: string },
      action: 'orphans_deleted' | 'purged_media_deleted',
      who: AccountChange,
      data: Record<string, unknown>,
    ) => recordAccountEvent(db, subject, action, who, data as Prisma.InputJsonValue),

    /** The keys recorded in `bucket` for any of `submissionIds`. */
    async recordedKeys(bucket: string, submissionIds: readonly string[]): Promise<Set<string>> {
      const ids = [...new Set(submissionIds)];
      if (ids.length === 0) return new Set();
      const objects = await db.mediaObject.findMany({
        where: { submissionId: { in: ids }, bucket },
        select: { key: true },
      });
      return new Set(objects.map((o) => o.key));
    },
  };
}
