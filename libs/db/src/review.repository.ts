import type { MediaType, SubmissionStatus } from '@framedesk/domain';
import type { MediaObjectRow } from './media-objects.repository';
import type { DbClient, Prisma } from './prisma';
import type { SubmissionWithSlugs } from './submissions.repository';

export interface ReviewQueueFilter {
  readonly channelSlug?: string;
  readonly agentSlug?: string;
  readonly mediaType?: MediaType;
  /** Frame dates, YYYYMMDD, inclusive. */
  readonly dateFrom?: string;
  readonly dateTo?: string;
  /** Keyset cursor: the last item of the previous page. */
  readonly after?: { readonly createdAt: Date; readonly id: string };
  readonly limit: number;
}

export interface SubmissionWithMedia extends SubmissionWithSlugs {
  readonly media: MediaObjectRow[];
}

export interface SubmissionEventRow {
  readonly id: bigint;
  readonly submissionId: string;
  readonly type: string;
  readonly fromStatus: SubmissionStatus | null;
  readonly toStatus: SubmissionStatus | null;
  readonly actorType: 'agent' | 'reviewer' | 'system';
  readonly actorId: string | null;
  readonly reason: string | null;
  readonly data: unknown;
  readonly createdAt: Date;
}

export interface SubmissionDetailRow extends SubmissionWithMedia {
  readonly events: SubmissionEventRow[];
}

export type ClaimResult =
  | { readonly ok: true; readonly claimedUntil: Date; readonly renewed: boolean }
  | {
      readonly ok: false;
      readonly status: SubmissionStatus | null;
      readonly claimedBy: string | null;
      readonly claimedUntil: Date | null;
    };

const withSlugsAndMedia = {
  agent: { select: { slug: true } },
  channel: { select: { slug: true } },
  media: { orderBy: [{ kind: 'asc' }, { name: 'asc' }] },
} as const satisfies Prisma.SubmissionInclude;

/** Reads and claims for the reviewer workbench. Status changes still go through `Database.transition`. */
export function reviewRepository(db: DbClient) {
  const channelIdOf = async (slug: string): Promise<string | null> =>
    (await db.channel.findUnique({ where: { slug }, select: { id: true } }))?.id ?? null;

  return {
    /** `needs_review`, oldest first, keyset-paginated on (created_at, id). */
    async queue(filter: ReviewQueueFilter): Promise<SubmissionWithMedia[]> {
      const { after } = filter;
      // By id, not `channel: { slug }` (a join the planner sorts after): the index then serves the
      // filter and the order, and LIMIT stops after `limit` entries.
      const channelId = filter.channelSlug ? await channelIdOf(filter.channelSlug) : undefined;
      if (channelId === null) return [];
      const date: Prisma.StringFilter = {};
      if (filter.dateFrom) date.gte = filter.dateFrom;
      if (filter.dateTo) date.lte = filter.dateTo;
      return db.submission.findMany({
        where: {
          status: 'needs_review',
          ...(channelId ? { channelId } : {}),
          ...(filter.agentSlug ? { agent: { slug: filter.agentSlug } } : {}),
          ...(filter.mediaType ? { mediaType: filter.mediaType } : {}),
          ...(filter.dateFrom || filter.dateTo ? { date } : {}),
          ...(after
            ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
            : {}),
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: filter.limit,
        include: withSlugsAndMedia,
      });
    },

    /** Every channel with how many of its submissions wait for review. */
    async channelCounts(): Promise<{ slug: string; name: string; needsReview: number }[]> {
      const [channels, counts] = await Promise.all([
        db.channel.findMany({ orderBy: { slug: 'asc' }, select: { id: true, slug: true, name: true } }),
        db.submission.groupBy({ by: ['channelId'], where: { status: 'needs_review' }, _count: { _all: true } }),
      ]);
      const byId = new Map(counts.map((c) => [c.channelId, c._count._all]));
      return channels.map((c) => ({ slug: c.slug, name: c.name, needsReview: byId.get(c.id) ?? 0 }));
    },

    detail: (id: string): Promise<SubmissionDetailRow | null> =>
      db.submission.findUnique({
        where: { id },
        include: { ...withSlugsAndMedia, events: { orderBy: { id: 'asc' } } },
      }),

    /**
     * Compare-and-set claim: succeeds when the submission waits for review and nobody else holds a
     * live claim. Renewing one's own claim writes no event; taking a free or expired one does.
     */
    async claim(input: { id: string; reviewerId: string; until: Date; now: Date }): Promise<ClaimResult> {
      const { id, reviewerId, until, now } = input;
      const renewed = await db.submission.updateMany({
        where: { id, status: 'needs_review', claimedBy: reviewerId, claimedUntil: { gt: now } },
        data: { claimedUntil: until },
      });
      if (renewed.count === 1) return { ok: true, claimedUntil: until, renewed: true };
      const taken = await db.submission.updateMany({
        where: {
          id,
          status: 'needs_review',
          OR: [{ claimedBy: null }, { claimedUntil: null }, { claimedUntil: { lte: now } }],
        },
        data: { claimedBy: reviewerId, claimedUntil: until },
      });
      if (taken.count === 1) {
        await db.submissionEvent.create({
          data: {
            submissionId: id,
            type: 'claimed',
            actorType: 'reviewer',
            actorId: reviewerId,
            data: { until: until.toISOString() },
          },
        });
        return { ok: true, claimedUntil: until, renewed: false };
      }
      const row = await db.submission.findUnique({
        where: { id },
        select: { status: true, claimedBy: true, claimedUntil: true },
      });
      return {
        ok: false,
        status: row?.status ?? null,
        claimedBy: row?.claimedBy ?? null,
        claimedUntil: row?.claimedUntil ?? null,
      };
    },

    /** Gives a claim back (the reviewer moved on without deciding). */
    async release(input: { id: string; reviewerId: string }): Promise<boolean> {
      const { count } = await db.submission.updateMany({
        where: { id: input.id, claimedBy: input.reviewerId },
        data: { claimedBy: null, claimedUntil: null },
      });
      if (count === 1) {
        await db.submissionEvent.create({
          data: { submissionId: input.id, type: 'released', actorType: 'reviewer', actorId: input.reviewerId },
        });
      }
      return count === 1;
    },

    /** A channel's promoted frames in timeline order: frame date, then promotion time. */
    async timeline(input: {
      /** The channel's id when the caller has it; otherwise its slug is looked up first. */
      channelId?: string;
      channelSlug?: string;
      after?: { date: string; reviewedAt: Date; id: string };
      limit: number;
    }): Promise<SubmissionWithMedia[]> {
      const { after } = input;
      const channelId = input.channelId ?? (input.channelSlug ? await channelIdOf(input.channelSlug) : null);
      if (!channelId) return [];
      return db.submission.findMany({
        where: {
          status: 'promoted',
          channelId,
          ...(after
            ? {
                OR: [
                  { date: { gt: after.date } },
                  { date: after.date, reviewedAt: { gt: after.reviewedAt } },
                  { date: after.date, reviewedAt: after.reviewedAt, id: { gt: after.id } },
                ],
              }
            : {}),
        },
        orderBy: [{ date: 'asc' }, { reviewedAt: 'asc' }, { id: 'asc' }],
        take: input.limit,
        include: withSlugsAndMedia,
      });
    },

    /** The most recently failed submissions, with their failure code and message. */
    recentlyFailed: (
      limit: number,
      filter: { failureCode?: string; channelSlug?: string } = {},
    ): Promise<SubmissionWithSlugs[]> =>
      db.submission.findMany({
        where: {
          status: 'failed',
          ...(filter.failureCode ? { failureCode: filter.failureCode } : {}),
          ...(filter.channelSlug ? { channel: { slug: filter.channelSlug } } : {}),
        },
        orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
        take: limit,
        include: { agent: { select: { slug: true } }, channel: { select: { slug: true } } },
      }),

    /** Emails of reviewers by id (claims and decisions name people, not ids). */
    async reviewerEmails(ids: readonly string[]): Promise<Map<string, string>> {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      const rows = await db.reviewer.findMany({ where: { id: { in: unique } }, select: { id: true, email: true } });
      return new Map(rows.map((r) => [r.id, r.email]));
    },
  };
}
