import type { AccountChange } from './accounts.repository';
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import { MEDIA_HOLDER_SELECT, type MediaHolder } from './retention.repository';
import type { Actor } from './submissions.repository';

/** What an erasure request covers: one submission, or an agent's (in a channel, before a time). */
export type ErasureFilter =
  { readonly submissionId: string } | { readonly agentId: string; readonly channelId?: string; readonly before?: Date };

export interface ErasureCounts {
  readonly submissions: number;
  /** Stored originals, variants and posters. */
  readonly objects: number;
  readonly bytes: number;
  /** Copies held by a remote video provider (Cloudflare Stream). */
  readonly providerVideos: number;
}

/** Metadata fields that may hold personal data; `external_ref` (the agent's own reference) stays. */
const PERSONAL_METADATA = ['title', 'caption', 'click_zones'] as const;
const STORED_KINDS = ['original', 'variant', 'poster'];

function whereOf(filter: ErasureFilter): Prisma.SubmissionWhereInput {
  if ('submissionId' in filter) return { id: filter.submissionId, erasedAt: null };
  return {
    agentId: filter.agentId,
    erasedAt: null,
    ...(filter.channelId ? { channelId: filter.channelId } : {}),
    ...(filter.before ? { createdAt: { lt: filter.before } } : {}),
  };
}

/** Erasure requests (GDPR art. 17): find what an agent sent, blank its personal fields, keep the tombstone. */
export function erasureRepository(db: DbClient) {
  return {
    /** What `erase` would remove now (a dry run): frames not erased yet, their objects and bytes. */
    async count(filter: ErasureFilter): Promise<ErasureCounts> {
      const where = whereOf(filter);
      const [submissions, objects, providerVideos] = await Promise.all([
        db.submission.count({ where }),
        db.mediaObject.aggregate({
          where: { submission: where, kind: { in: STORED_KINDS } },
          _count: { _all: true },
          _sum: { byteSize: true },
        }),
        db.mediaUpload.count({ where: { submission: where, provider: { not: 'local' }, providerRef: { not: null } } }),
      ]);
      return {
        submissions,
        objects: objects._count._all,
        bytes: Number(objects._sum.byteSize ?? 0n),
        providerVideos,
      };
    },

    /** The next frames to erase, oldest first (keyset on created_at, id). */
    candidates: (
      filter: ErasureFilter,
      limit: number,
      after?: { readonly createdAt: Date; readonly id: string },
    ): Promise<MediaHolder[]> =>
      db.submission.findMany({
        where: {
          ...whereOf(filter),
          ...(after
            ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
            : {}),
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: limit,
        select: MEDIA_HOLDER_SELECT,
      }),

    /**
     * After their objects are deleted: blanks the personal fields (title, caption, click zones,
     * the upload's file name), drops media rows, the perceptual fingerprint and any replayable
     * idempotent response still holding the metadata; marks the rows erased and purged and
     * appends one `erased` event each. The row, its status, slugs, dates and review stay.
     * Returns the ids erased. Run in a transaction.
     */
    async markErased(
      ids: readonly string[],
      input: { at: Date; actor: Actor; data: (id: string) => Record<string, unknown>; replayableSince: Date },
    ): Promise<string[]> {
      if (ids.length === 0) return [];
      const marked = await db.$queryRaw<{ id: string; status: string; created_at: Date }[]>`
        UPDATE submissions
           SET title = NULL,
               metadata = metadata - ${Prisma.join(
                 PERSONAL_METADATA.map((field) => Prisma.sql`${field}::text`),
                 ' - ',
               )},
               purged_at = COALESCE(purged_at, ${input.at}), erased_at = ${input.at}, updated_at = ${input.at}
         WHERE id = ANY(${[...ids]}) AND erased_at IS NULL
     RETURNING id, status::text AS status, created_at`;
      const done = marked.map((m) => m.id);
      if (done.length === 0) return [];
      await db.mediaObject.deleteMany({ where: { submissionId: { in: done } } });
      await db.submissionFingerprint.deleteMany({ where: { submissionId: { in: done } } });
      await db.mediaUpload.updateMany({ where: { submissionId: { in: done } }, data: { filename: '' } });
      // Responses are replayable for a day: only frames created since then can have one.
      const recent = marked.filter((m) => m.created_at >= input.replayableSince).map((m) => m.id);
      if (recent.length > 0)
        await db.$executeRaw`DELETE FROM idempotency_records WHERE response_body->>'id' = ANY(${recent})`;
      await db.submissionEvent.createMany({
        data: marked.map((m) => ({
          submissionId: m.id,
          type: 'erased',
          fromStatus: m.status as Prisma.SubmissionEventCreateManyInput['fromStatus'],
          toStatus: m.status as Prisma.SubmissionEventCreateManyInput['toStatus'],
          actorType: input.actor.type,
          actorId: input.actor.id ?? null,
          reason: 'erasure request',
          data: input.data(m.id) as Prisma.InputJsonValue,
          createdAt: input.at,
        })),
      });
      return done;
    },

    /** The audit line of one erasure request: who, when, what (the filter), how many. */
    record: (subject: { type: 'agent' | 'submission'; id: string }, who: AccountChange, data: Prisma.InputJsonValue) =>
      db.accountEvent.create({
        data: {
          subjectType: subject.type,
          subjectId: subject.id,
          action: 'media_erased',
          actor: who.actor,
          createdAt: who.at,
          data,
        },
      }),
  };
}
