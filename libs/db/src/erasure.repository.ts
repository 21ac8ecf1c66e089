import { type AccountChange, recordAccountEvent } from './accounts.repository';
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import { MEDIA_HOLDER_SELECT, type MediaHolder, mediaSummary } from './retention.repository';
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

/**
 * Metadata fields that may hold personal data (a video's `filename` is copied into its metadata);
 * `external_ref` (the agent's own reference) stays.
 */
const PERSONAL_METADATA = ['title', 'caption', 'click_zones', 'filename'] as const;

/** The account_events actions of one erasure request: recorded first, then after each batch, then done. */
export type ErasureAction = 'media_erasure_requested' | 'media_erasure_progress' | 'media_erased';
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

/** Regions (jsonb [{x, y, width, height, label}]) with their labels blanked; the boxes stay. */
const unlabelled = (regions: Prisma.Sql) => Prisma.sql`
  CASE WHEN jsonb_typeof(${regions}) = 'array' THEN (
    SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(r) = 'object' THEN r || '{"label": ""}'::jsonb ELSE r END ORDER BY n), '[]'::jsonb)
    FROM jsonb_array_elements(${regions}) WITH ORDINALITY AS t(r, n)
  ) ELSE ${regions} END`;

/**
 * What reviewers wrote about the erased frames, which may name the person: the decision's note and
 * region labels as its events hold them (the audit export's `note`), and the internal notes' text.
 */
async function blankReviewersText(db: DbClient, ids: readonly string[]): Promise<void> {
  await db.$executeRaw`
    UPDATE submission_events
       SET data = (data - 'note') || CASE WHEN data ? 'regions'
                                          THEN jsonb_build_object('regions', ${unlabelled(Prisma.sql`data->'regions'`)})
                                          ELSE '{}'::jsonb END
     WHERE submission_id = ANY(${[...ids]}) AND jsonb_typeof(data) = 'object' AND (data ? 'note' OR data ? 'regions')`;
  await db.$executeRaw`UPDATE review_notes SET body = '' WHERE submission_id = ANY(${[...ids]}) AND body <> ''`;
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
     * Marks the frames erased before anything is deleted: blanks the personal fields (title,
     * caption, click zones, the video's file name, the upload's file name) and what reviewers wrote
     * (the decision's note and region labels, in the row and its events; internal notes), drops the perceptual
     * fingerprint and any replayable idempotent response still holding the metadata (the
     * submission's, and an upload session's, keyed by the upload id), closes an open upload
     * session, sets `erased_at`, `purged_at` and `deletion_pending_since` (a compare-and-set on
     * `erased_at`), and appends one `erased` event each. From then on no worker commits media
     * for them. Returns what the marked frames hold — read after the mark, so it includes media
     * a worker committed just before — to delete next (`retention.finishDeletion`). The row,
     * its status, slugs, dates and review stay. Run in a transaction.
     */
    async markErased(
      ids: readonly string[],
      input: { at: Date; actor: Actor; replayableSince: Date; data?: Record<string, unknown> },
    ): Promise<MediaHolder[]> {
      if (ids.length === 0) return [];
      const marked = await db.$queryRaw<{ id: string; created_at: Date }[]>`
        UPDATE submissions
           SET title = NULL,
               metadata = metadata - ${Prisma.join(
                 PERSONAL_METADATA.map((field) => Prisma.sql`${field}::text`),
                 ' - ',
               )},
               review_note = NULL, review_regions = ${unlabelled(Prisma.sql`review_regions`)},
               purged_at = COALESCE(purged_at, ${input.at}), erased_at = ${input.at},
               deletion_pending_since = ${input.at}, updated_at = ${input.at}
         WHERE id = ANY(${[...ids]}) AND erased_at IS NULL
     RETURNING id, created_at`;
      const done = marked.map((m) => m.id);
      if (done.length === 0) return [];
      const holders = await db.submission.findMany({
        where: { id: { in: done } },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: MEDIA_HOLDER_SELECT,
      });
      await blankReviewersText(db, done);
      await db.submissionFingerprint.deleteMany({ where: { submissionId: { in: done } } });
      await db.mediaUpload.updateMany({ where: { submissionId: { in: done } }, data: { filename: '' } });
      await db.mediaUpload.updateMany({
        where: { submissionId: { in: done }, expiresAt: { gt: input.at } },
        data: { expiresAt: input.at },
      });
      // Responses are replayable for a day: only frames created since then can have one. A video's
      // creation answered with its upload session, whose id is the upload's.
      const recent = new Set(marked.filter((m) => m.created_at >= input.replayableSince).map((m) => m.id));
      const replayIds = holders
        .filter((h) => recent.has(h.id))
        .flatMap((h) => [h.id, ...(h.upload ? [h.upload.id] : [])]);
      if (replayIds.length > 0)
        await db.$executeRaw`DELETE FROM idempotency_records WHERE response_body->>'id' = ANY(${replayIds})`;
      await db.submissionEvent.createMany({
        data: holders.map((h) => ({
          submissionId: h.id,
          type: 'erased',
          fromStatus: h.status,
          toStatus: h.status,
          actorType: input.actor.type,
          actorId: input.actor.id ?? null,
          reason: 'erasure request',
          data: { ...mediaSummary(h), ...input.data } as Prisma.InputJsonValue,
          createdAt: input.at,
        })),
      });
      return holders;
    },

    /** An audit line of one erasure request: who, when, what (the filter), how far, how many. */
    record: (
      subject: { type: 'agent' | 'submission'; id: string },
      action: ErasureAction,
      who: AccountChange,
      data: Record<string, unknown>,
    ) => recordAccountEvent(db, subject, action, who, data as Prisma.InputJsonValue),
  };
}
