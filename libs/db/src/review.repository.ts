import type { MediaType, SubmissionStatus } from '@framedesk/domain';
import { type ChannelScope, channelInScope, channelScopeSql, submissionInScope } from './channel-scope';
import type { ChannelRow } from './channels.repository';
import type { MediaObjectRow } from './media-objects.repository';
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import { type JsonSubmissionRow, selectJsonRows, SUBMISSION_COLUMNS, withDates } from './submission-json';
import type { SubmissionRow, SubmissionWithSlugs } from './submission-rows';

export interface ReviewQueueFilter {
  /** The reader's channels: nothing outside them is read. */
  readonly scope: ChannelScope;
  readonly channelSlug?: string;
  readonly agentSlug?: string;
  readonly mediaType?: MediaType;
  /** Frame dates, YYYYMMDD, inclusive. */
  readonly dateFrom?: string;
  readonly dateTo?: string;
  /**
   * Keyset cursor: the last item of the previous page, with its due time (null: none) and
   * priority (review policies: the queue sorts overdue and due first, then by priority).
   */
  readonly after?: {
    readonly createdAt: Date;
    readonly id: string;
    readonly dueAt?: Date | null;
    readonly priority?: number;
  };
  readonly limit: number;
}

/** What the review views read of a media row: which variant or poster it is, where it lives. */
export type MediaRef = Pick<MediaObjectRow, 'kind' | 'name' | 'key'>;

export interface SubmissionWithMedia extends SubmissionWithSlugs {
  readonly media: readonly MediaRef[];
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

/**
 * A page of submissions in one statement: both slugs by join, the media the views read folded in
 * (Prisma's `include` sent each relation as its own statement: five per page). `where` and
 * `orderBy` must match an index so that LIMIT stops after `limit` entries.
 */
const selectPage = (where: Prisma.Sql[], orderBy: Prisma.Sql, limit: number) => Prisma.sql`
  SELECT ${SUBMISSION_COLUMNS}, a.slug AS "agentSlug", c.slug AS "channelSlug",
         row_number() OVER (ORDER BY ${orderBy}) AS "position",
         COALESCE((SELECT json_agg(json_build_object('kind', m.kind, 'name', m.name, 'key', m.key)
                                   ORDER BY m.kind, m.name)
                     FROM media_objects m WHERE m.submission_id = s.id), '[]'::json) AS "media"
    FROM submissions s
    JOIN agents a ON a.id = s.agent_id
    JOIN channels c ON c.id = s.channel_id
   WHERE ${Prisma.join(where, ' AND ')}
   ORDER BY ${orderBy}
   LIMIT ${limit}`;

type RawPageRow = JsonSubmissionRow & {
  readonly agentSlug: string;
  readonly channelSlug: string;
  readonly position: number;
  readonly media: readonly MediaRef[];
};

async function readPage(db: DbClient, query: Prisma.Sql): Promise<SubmissionWithMedia[]> {
  const rows = await selectJsonRows<RawPageRow>(db, query);
  return rows.map(({ agentSlug, channelSlug, position: _position, ...row }) => ({
    ...withDates(row),
    agent: { slug: agentSlug },
    channel: { slug: channelSlug },
  }));
}

/** After a queue position in (due_at NULLS LAST, priority DESC, created_at, id) order. */
function afterInQueue(after: NonNullable<ReviewQueueFilter['after']>): Prisma.Sql {
  const rest = Prisma.sql`(-s.review_priority, s.created_at, s.id) > (${-(after.priority ?? 0)}, ${after.createdAt}::timestamptz, ${after.id})`;
  if (!after.dueAt) return Prisma.sql`(s.due_at IS NULL AND ${rest})`;
  return Prisma.sql`(s.due_at IS NULL OR s.due_at > ${after.dueAt}::timestamptz
    OR (s.due_at = ${after.dueAt}::timestamptz AND ${rest}))`;
}

/** Reads and claims for the reviewer workbench. Status changes still go through `Database.transition`. */
export function reviewRepository(db: DbClient) {
  return {
    /**
     * The review backlog's age: per channel with frames in `needs_review`, since when its oldest
     * has waited (from its submission), oldest channels first, at most `limit` of them. One
     * statement, one probe of the review-queue index per channel.
     */
    async oldestWaitingPerChannel(limit: number): Promise<{ channel: string; since: Date }[]> {
      return db.$queryRaw<{ channel: string; since: Date }[]>`
        SELECT c.slug AS channel, oldest.created_at AS since
        FROM channels c
        CROSS JOIN LATERAL (
          SELECT s.created_at FROM submissions s
          WHERE s.status = 'needs_review' AND s.channel_id = c.id
          ORDER BY s.created_at LIMIT 1
        ) oldest
        ORDER BY oldest.created_at LIMIT ${limit}`;
    },

    /**
     * `needs_review`: due first (soonest, so the overdue lead), then by priority, then oldest
     * first; keyset-paginated on (due_at, priority, created_at, id). One statement.
     */
    async queue(filter: ReviewQueueFilter): Promise<SubmissionWithMedia[]> {
      // By id (a scalar subquery), not a join on the slug, which the planner would sort after:
      // the index then serves the filter and the order. An unknown slug matches nothing.
      const where = [Prisma.sql`s.status = 'needs_review'`, channelScopeSql(filter.scope, Prisma.sql`s.channel_id`)];
      if (filter.channelSlug !== undefined)
        where.push(Prisma.sql`s.channel_id = (SELECT id FROM channels WHERE slug = ${filter.channelSlug})`);
      if (filter.agentSlug !== undefined)
        where.push(Prisma.sql`s.agent_id = (SELECT id FROM agents WHERE slug = ${filter.agentSlug})`);
      if (filter.mediaType) where.push(Prisma.sql`s.media_type = ${filter.mediaType}::"MediaType"`);
      if (filter.dateFrom) where.push(Prisma.sql`s.date >= ${filter.dateFrom}`);
      if (filter.dateTo) where.push(Prisma.sql`s.date <= ${filter.dateTo}`);
      if (filter.after) where.push(afterInQueue(filter.after));
      return readPage(
        db,
        selectPage(
          where,
          Prisma.sql`s.due_at ASC NULLS LAST, s.review_priority DESC, s.created_at, s.id`,
          filter.limit,
        ),
      );
    },

    /** When the reviewer decided (promoted or rejected) since `since`, oldest first. */
    async decisionTimes(reviewerId: string, since: Date): Promise<Date[]> {
      const rows = await db.$queryRaw<{ at: Date }[]>`
        SELECT created_at AS at FROM submission_events
        WHERE actor_type = 'reviewer' AND actor_id = ${reviewerId} AND type = 'transition'
          AND to_status IN ('promoted', 'rejected') AND created_at >= ${since}
        ORDER BY created_at`;
      return rows.map((r) => r.at);
    },

    /** How many frames of the scope (or of one of its channels) wait for review, and since when the oldest. */
    async backlog(scope: ChannelScope, channelSlug?: string): Promise<{ waiting: number; oldest: Date | null }> {
      const where = [Prisma.sql`s.status = 'needs_review'`, channelScopeSql(scope, Prisma.sql`s.channel_id`)];
      if (channelSlug !== undefined)
        where.push(Prisma.sql`s.channel_id = (SELECT id FROM channels WHERE slug = ${channelSlug})`);
      const [row] = await db.$queryRaw<{ waiting: bigint; oldest: Date | null }[]>`
        SELECT count(*) AS waiting, min(s.created_at) AS oldest FROM submissions s
        WHERE ${Prisma.join(where, ' AND ')}`;
      return { waiting: Number(row?.waiting ?? 0), oldest: row?.oldest ?? null };
    },

    /** Every channel of the scope with how many of its submissions wait for review. */
    async channelCounts(scope: ChannelScope): Promise<{ slug: string; name: string; needsReview: number }[]> {
      const [channels, counts] = await Promise.all([
        db.channel.findMany({
          where: channelInScope(scope),
          orderBy: { slug: 'asc' },
          select: { id: true, slug: true, name: true },
        }),
        db.submission.groupBy({
          by: ['channelId'],
          where: { status: 'needs_review', ...submissionInScope(scope) },
          _count: { _all: true },
        }),
      ]);
      const byId = new Map(counts.map((c) => [c.channelId, c._count._all]));
      return channels.map((c) => ({ slug: c.slug, name: c.name, needsReview: byId.get(c.id) ?? 0 }));
    },

    /** A submission with its media and events, or null when it does not exist or is outside the scope. */
    detail: (id: string, scope: ChannelScope): Promise<SubmissionDetailRow | null> =>
      db.submission.findFirst({
        where: { id, ...submissionInScope(scope) },
        include: { ...withSlugsAndMedia, events: { orderBy: { id: 'asc' } } },
      }),

    /** The submission when it exists inside the scope; null otherwise (never "exists elsewhere"). */
    findInScope: (id: string, scope: ChannelScope): Promise<SubmissionRow | null> =>
      db.submission.findFirst({ where: { id, ...submissionInScope(scope) } }),

    /** A channel by slug when it is inside the scope. */
    channelInScope: (slug: string, scope: ChannelScope): Promise<ChannelRow | null> =>
      db.channel.findFirst({ where: { slug, ...channelInScope(scope) } }),

    /** The stored original of a submission inside the scope, unless its media were purged or erased. */
    original: (id: string, scope: ChannelScope): Promise<MediaObjectRow | null> =>
      db.mediaObject.findFirst({
        where: {
          submissionId: id,
          kind: 'original',
          name: 'original',
          submission: { ...submissionInScope(scope), purgedAt: null },
        },
      }) as Promise<MediaObjectRow | null>,

    /**
     * Whether the reviewer (enabled, and an admin or a member of the submission's channel) may see
     * the submission now: media links issued to a reviewer stop working the moment that changes.
     */
    async visibleTo(reviewerId: string, submissionId: string): Promise<boolean> {
      const rows = await db.$queryRaw<{ ok: number }[]>`
        SELECT 1 AS ok
          FROM reviewers r
          JOIN submissions s ON s.id = ${submissionId}
         WHERE r.id = ${reviewerId}
           AND r.disabled_at IS NULL
           AND (r.role = 'admin'
                OR s.channel_id IN (SELECT rc.channel_id FROM reviewer_channels rc WHERE rc.reviewer_id = r.id))`;
      return rows.length > 0;
    },

    /** The ids of the channels a reviewer is a member of (the live event stream's filter). */
    async memberChannelIds(reviewerId: string): Promise<Set<string>> {
      const rows = await db.reviewerChannel.findMany({ where: { reviewerId }, select: { channelId: true } });
      return new Set(rows.map((r) => r.channelId));
    },

    /** A submission's channel id (a live change published without one, by an older process). */
    channelOf: async (submissionId: string): Promise<string | null> =>
      (await db.submission.findUnique({ where: { id: submissionId }, select: { channelId: true } }))?.channelId ?? null,

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

    /** A channel's promoted frames in timeline order: frame date, then promotion time. One statement. */
    async timeline(input: {
      /** The channel's id when the caller has it (checked against the scope by the caller); otherwise its slug is looked up in the statement. */
      channelId?: string;
      channelSlug?: string;
      after?: { date: string; reviewedAt: Date; id: string };
      limit: number;
    }): Promise<SubmissionWithMedia[]> {
      const { after } = input;
      let channel: Prisma.Sql;
      if (input.channelId !== undefined) channel = Prisma.sql`${input.channelId}`;
      else if (input.channelSlug !== undefined)
        channel = Prisma.sql`(SELECT id FROM channels WHERE slug = ${input.channelSlug})`;
      else return [];
      const where = [Prisma.sql`s.channel_id = ${channel}`, Prisma.sql`s.status = 'promoted'`];
      if (after)
        where.push(
          Prisma.sql`(s.date, s.reviewed_at, s.id) > (${after.date}, ${after.reviewedAt}::timestamptz, ${after.id})`,
        );
      return readPage(db, selectPage(where, Prisma.sql`s.date, s.reviewed_at, s.id`, input.limit));
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
