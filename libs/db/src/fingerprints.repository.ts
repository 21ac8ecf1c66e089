import type { SubmissionStatus } from '@framedesk/domain';
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import type { SubmissionWithMedia } from './review.repository';

export interface FingerprintRow {
  readonly submissionId: string;
  readonly channelId: string;
  readonly createdAt: Date;
  /** 64-bit perceptual hash, signed (PostgreSQL bigint). */
  readonly perceptualHash: bigint;
  readonly band0: number;
  readonly band1: number;
  readonly band2: number;
  readonly band3: number;
}

/**
 * One near-duplicate search: earlier frames of a channel within a window whose fingerprint is at
 * most `maxDistance` bits from `hash`. `bandValues[i]` lists the values of band i to look up (the
 * frame's own band XOR every mask within the band radius); the exact distance is checked after.
 */
export interface SimilarityQuery {
  readonly submissionId: string;
  readonly channelId: string;
  readonly hash: bigint;
  readonly bandValues: readonly [readonly number[], readonly number[], readonly number[], readonly number[]];
  /** Only frames created before this… */
  readonly before: Date;
  /** …and at or after this. */
  readonly since: Date;
  readonly maxDistance: number;
  readonly limit: number;
}

export interface SimilarMatch {
  readonly submissionId: string;
  readonly distance: number;
}

/** A frame that has media to fingerprint but no fingerprint yet. */
export interface UnfingerprintedRow {
  readonly id: string;
  readonly mediaType: 'image' | 'video';
  readonly createdAt: Date;
}

/** Statuses whose media is complete (the pipeline made variants or a poster). */
const PROCESSED: readonly SubmissionStatus[] = ['needs_review', 'promoted', 'rejected'];

function searchSql(q: SimilarityQuery, select: 'matches' | 'count'): Prisma.Sql {
  const [b0, b1, b2, b3] = q.bandValues;
  const distance = Prisma.sql`bit_count((f.perceptual_hash # ${q.hash})::bit(64))`;
  // Each band's OR-branch is an index lookup on (channel_id, band_i, created_at); PostgreSQL
  // combines them as a BitmapOr, so only candidates sharing a near band are read.
  const matches = Prisma.sql`
    SELECT f.submission_id, f.created_at, ${distance}::int AS distance
    FROM submission_fingerprints f
    WHERE f.channel_id = ${q.channelId}
      AND f.created_at < ${q.before} AND f.created_at >= ${q.since}
      AND (f.band_0 = ANY(${b0}::int[]) OR f.band_1 = ANY(${b1}::int[])
        OR f.band_2 = ANY(${b2}::int[]) OR f.band_3 = ANY(${b3}::int[]))
      AND f.submission_id <> ${q.submissionId}
      AND ${distance} <= ${q.maxDistance}`;
  if (select === 'count') {
    return Prisma.sql`SELECT ${q.submissionId}::text AS id, count(*)::int AS n
      FROM (${matches} LIMIT ${q.limit}) m`;
  }
  return Prisma.sql`${matches} ORDER BY distance, f.created_at DESC, f.submission_id LIMIT ${q.limit}`;
}

/** Perceptual fingerprints of processed frames and the near-duplicate search over them. */
export function fingerprintsRepository(db: DbClient) {
  return {
    /** Stores (or replaces) a frame's fingerprint; channel and creation time come from the submission. */
    async save(input: {
      submissionId: string;
      perceptualHash: bigint;
      bands: readonly [number, number, number, number];
    }): Promise<boolean> {
      const [band0, band1, band2, band3] = input.bands;
      const inserted = await db.$executeRaw`
        INSERT INTO submission_fingerprints
          (submission_id, channel_id, created_at, perceptual_hash, band_0, band_1, band_2, band_3)
        SELECT s.id, s.channel_id, s.created_at, ${input.perceptualHash}, ${band0}, ${band1}, ${band2}, ${band3}
        FROM submissions s WHERE s.id = ${input.submissionId}
        ON CONFLICT (submission_id) DO UPDATE SET
          perceptual_hash = EXCLUDED.perceptual_hash, band_0 = EXCLUDED.band_0, band_1 = EXCLUDED.band_1,
          band_2 = EXCLUDED.band_2, band_3 = EXCLUDED.band_3`;
      return inserted === 1;
    },

    find: (submissionId: string): Promise<FingerprintRow | null> =>
      db.submissionFingerprint.findUnique({ where: { submissionId } }),

    findMany: (submissionIds: readonly string[]): Promise<FingerprintRow[]> =>
      submissionIds.length === 0
        ? Promise.resolve([])
        : db.submissionFingerprint.findMany({ where: { submissionId: { in: [...submissionIds] } } }),

    /** The closest earlier frames, best first (distance, then newest). */
    async search(query: SimilarityQuery): Promise<SimilarMatch[]> {
      const rows = await db.$queryRaw<{ submission_id: string; distance: number }[]>(searchSql(query, 'matches'));
      return rows.map((r) => ({ submissionId: r.submission_id, distance: Number(r.distance) }));
    },

    /** How many near-duplicates each frame has (at most its query's limit), in one round trip. */
    async count(queries: readonly SimilarityQuery[]): Promise<Map<string, number>> {
      if (queries.length === 0) return new Map();
      const rows = await db.$queryRaw<{ id: string; n: number }[]>(
        Prisma.join(
          queries.map((q) => Prisma.sql`(${searchSql(q, 'count')})`),
          ' UNION ALL ',
        ),
      );
      return new Map(rows.map((r) => [r.id, Number(r.n)]));
    },

    /** Frames by id with their channel/agent slugs and media (to show matches). */
    frames: (ids: readonly string[]): Promise<SubmissionWithMedia[]> =>
      ids.length === 0
        ? Promise.resolve([])
        : db.submission.findMany({
            where: { id: { in: [...ids] } },
            include: {
              agent: { select: { slug: true } },
              channel: { select: { slug: true } },
              media: { orderBy: [{ kind: 'asc' }, { name: 'asc' }] },
            },
          }),

    /** Processed frames without a fingerprint, oldest first, after a keyset cursor. */
    async unfingerprinted(input: {
      after?: { createdAt: Date; id: string };
      limit: number;
    }): Promise<UnfingerprintedRow[]> {
      const { after } = input;
      const rows = await db.submission.findMany({
        where: {
          status: { in: [...PROCESSED] },
          fingerprint: null,
          ...(after
            ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
            : {}),
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: input.limit,
        select: { id: true, mediaType: true, createdAt: true },
      });
      return rows;
    },
  };
}
