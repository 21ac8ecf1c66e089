import type { SubmissionStatus } from '@framedesk/domain';
import { Prisma } from './generated/prisma/client.ts';
import { type ChannelScope, submissionInScope } from './channel-scope';
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
  /** Near-duplicates among the earlier frames when it was fingerprinted (at most MAX_SIMILAR). */
  readonly similarCount: number;
}

/** What counts as a near-duplicate: Hamming distance and how far back in the channel. */
export interface SimilaritySettings {
  /** Largest Hamming distance (of 64 bits); at most 15, so the band radius stays ≤ 3. */
  readonly maxDistance: number;
  readonly windowDays: number;
}

export const DEFAULT_SIMILARITY: SimilaritySettings = { maxDistance: 10, windowDays: 90 };
/** At most this many near-duplicates are listed (and counted) per frame. */
export const MAX_SIMILAR = 10;

/**
 * At most this many candidates are read from each band's index per search (the exact band value
 * first, then the values 1 and 2 bits away; newest first within a value). A channel flooded with
 * identical fingerprints (an agent sending blank frames) costs a search at most 4 × this many
 * rows, not one per frame; only then can the search miss an older match.
 */
export const MAX_BAND_CANDIDATES = 100;

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

const BANDS = 4;
const BAND_BITS = 16;
const DAY_MS = 86_400_000;

/** The hash's four 16-bit bands, most significant first, each 0–65535. */
export function fingerprintBands(hash: bigint): [number, number, number, number] {
  const u = BigInt.asUintN(64, hash);
  const band = (i: number) => Number((u >> BigInt(BAND_BITS * (BANDS - 1 - i))) & 0xffffn);
  return [band(0), band(1), band(2), band(3)];
}

const masksByRadius = new Map<number, number[]>();

function bitCount(value: number): number {
  let bits = 0;
  for (let v = value; v; v &= v - 1) bits++;
  return bits;
}

/**
 * XOR masks of every 16-bit value within `radius` bits. Two hashes within distance d share at
 * least one band within ⌊d/4⌋ bits (pigeonhole), so a search looks each band up at `band ^ mask`
 * (multi-index hashing): exact, and it reads a few index entries instead of the channel.
 */
export function bandMasks(radius: number): number[] {
  let masks = masksByRadius.get(radius);
  if (!masks) {
    masks = [];
    for (let m = 0; m < 1 << BAND_BITS; m++) {
      if (bitCount(m) <= radius) masks.push(m);
    }
    // The exact value first, then 1 bit away, …: a capped band reads its closest candidates first.
    masks.sort((a, b) => bitCount(a) - bitCount(b) || a - b);
    masksByRadius.set(radius, masks);
  }
  return masks;
}

/** Where a search's frame sits: its channel and creation time, as values or as SQL (a column). */
export interface SearchOrigin {
  readonly channelId: Prisma.Sql;
  readonly createdAt: Prisma.Sql;
  readonly since: Prisma.Sql;
}

const originOf = (f: FingerprintRow, settings: SimilaritySettings): SearchOrigin => ({
  channelId: Prisma.sql`${f.channelId}`,
  createdAt: Prisma.sql`${f.createdAt}`,
  since: Prisma.sql`${new Date(f.createdAt.getTime() - settings.windowDays * DAY_MS)}`,
});

/**
 * One band's candidates: earlier frames of the channel within the window whose band `column` is one
 * of `values`, at most MAX_BAND_CANDIDATES. Each value is one index range scan on
 * (channel_id, band_i, created_at), newest first, and the outer LIMIT stops the lookups as soon as
 * the band has its share, however many frames share the value.
 */
export function bandCandidates(column: Prisma.Sql, values: number[], origin: SearchOrigin): Prisma.Sql {
  return Prisma.sql`(
    SELECT c.submission_id, c.created_at, c.perceptual_hash
    FROM unnest(${values}::int[]) AS v(value)
    CROSS JOIN LATERAL (
      SELECT f.submission_id, f.created_at, f.perceptual_hash
      FROM submission_fingerprints f
      WHERE f.channel_id = ${origin.channelId} AND ${column} = v.value
        AND f.created_at < ${origin.createdAt} AND f.created_at >= ${origin.since}
      ORDER BY f.created_at DESC
      LIMIT ${MAX_BAND_CANDIDATES}
    ) c
    LIMIT ${MAX_BAND_CANDIDATES})`;
}

/** One search: earlier frames of the frame's channel within the window and the distance. */
function searchSql(
  f: Pick<FingerprintRow, 'submissionId' | 'perceptualHash' | 'band0' | 'band1' | 'band2' | 'band3'>,
  origin: SearchOrigin,
  settings: SimilaritySettings,
  select: 'matches' | 'count',
): Prisma.Sql {
  const masks = bandMasks(Math.floor(settings.maxDistance / BANDS));
  const [b0, b1, b2, b3] = [f.band0, f.band1, f.band2, f.band3].map((band) => masks.map((m) => band ^ m));
  const distance = Prisma.sql`bit_count((f.perceptual_hash # ${f.perceptualHash})::bit(64))`;
  // Each band is looked up on its own index (multi-index hashing), at most MAX_BAND_CANDIDATES
  // rows each; only those candidates get the exact distance.
  const matches = Prisma.sql`
    SELECT f.submission_id, f.created_at, ${distance}::int AS distance
    FROM (
      ${bandCandidates(Prisma.sql`f.band_0`, b0!, origin)}
      UNION ${bandCandidates(Prisma.sql`f.band_1`, b1!, origin)}
      UNION ${bandCandidates(Prisma.sql`f.band_2`, b2!, origin)}
      UNION ${bandCandidates(Prisma.sql`f.band_3`, b3!, origin)}
    ) f
    WHERE f.submission_id <> ${f.submissionId}
      AND ${distance} <= ${settings.maxDistance}`;
  if (select === 'count') return Prisma.sql`SELECT count(*)::int AS n FROM (${matches} LIMIT ${MAX_SIMILAR}) m`;
  return Prisma.sql`${matches} ORDER BY distance, f.created_at DESC, f.submission_id LIMIT ${MAX_SIMILAR}`;
}

export interface FingerprintToSave {
  readonly submissionId: string;
  readonly perceptualHash: bigint;
  readonly settings?: SimilaritySettings;
}

/** What `saveFingerprintSql` returns. */
export interface SavedFingerprint {
  readonly channel_id: string;
  readonly created_at: Date;
  readonly similar_count: number;
}

/**
 * Stores (or replaces) a frame's fingerprint, channel and creation time copied from the
 * submission, with how many near-duplicates it has among the earlier frames right now, in one
 * statement (`RETURNING` a SavedFingerprint; no row when there is no such submission).
 */
export function saveFingerprintSql(input: FingerprintToSave): Prisma.Sql {
  const [band0, band1, band2, band3] = fingerprintBands(input.perceptualHash);
  const settings = input.settings ?? DEFAULT_SIMILARITY;
  // The count of near-duplicates among the earlier frames (the frame itself is left out by id).
  const count = searchSql(
    { submissionId: input.submissionId, perceptualHash: input.perceptualHash, band0, band1, band2, band3 },
    {
      channelId: Prisma.sql`s.channel_id`,
      createdAt: Prisma.sql`s.created_at`,
      since: Prisma.sql`s.created_at - ${settings.windowDays * DAY_MS} * interval '1 millisecond'`,
    },
    settings,
    'count',
  );
  return Prisma.sql`
    INSERT INTO submission_fingerprints
      (submission_id, channel_id, created_at, perceptual_hash, band_0, band_1, band_2, band_3, similar_count)
    SELECT s.id, s.channel_id, s.created_at, ${input.perceptualHash}, ${band0}, ${band1}, ${band2}, ${band3}, (${count})
    FROM submissions s WHERE s.id = ${input.submissionId}
    ON CONFLICT (submission_id) DO UPDATE SET
      perceptual_hash = EXCLUDED.perceptual_hash, band_0 = EXCLUDED.band_0, band_1 = EXCLUDED.band_1,
      band_2 = EXCLUDED.band_2, band_3 = EXCLUDED.band_3, similar_count = EXCLUDED.similar_count
    RETURNING channel_id, created_at, similar_count`;
}

/** The stored row, from what was saved and what the statement returned. */
export function savedRow(input: FingerprintToSave, saved: SavedFingerprint): FingerprintRow {
  const [band0, band1, band2, band3] = fingerprintBands(input.perceptualHash);
  return {
    submissionId: input.submissionId,
    channelId: saved.channel_id,
    createdAt: saved.created_at,
    perceptualHash: input.perceptualHash,
    band0,
    band1,
    band2,
    band3,
    similarCount: Number(saved.similar_count),
  };
}

/** Statuses whose media is complete (the pipeline made variants or a poster). */
const PROCESSED: readonly SubmissionStatus[] = ['needs_review', 'promoted', 'rejected'];

/** Perceptual fingerprints of processed frames and the near-duplicate search over them. */
export function fingerprintsRepository(db: DbClient) {
  async function recount(row: FingerprintRow, settings: SimilaritySettings = DEFAULT_SIMILARITY): Promise<number> {
    // Counted and stored in one statement (one round trip), by the same search as before.
    const [counted] = await db.$queryRaw<{ n: number }[]>`
      UPDATE submission_fingerprints SET similar_count = (${searchSql(row, originOf(row, settings), settings, 'count')})
      WHERE submission_id = ${row.submissionId}
      RETURNING similar_count AS n`;
    if (!counted) throw new Error(`no fingerprint for submission ${row.submissionId}`);
    return Number(counted.n);
  }

  return {
    /**
     * Stores (or replaces) a frame's fingerprint, channel and creation time copied from the
     * submission, with how many near-duplicates it has among the earlier frames right now (a
     * frame's earlier frames do not change later: the queue reads this count).
     */
    async save(input: FingerprintToSave): Promise<FingerprintRow | null> {
      const rows = await db.$queryRaw<SavedFingerprint[]>(saveFingerprintSql(input));
      const saved = rows[0];
      return saved ? savedRow(input, saved) : null;
    },

    /** Counts the frame's near-duplicates among its earlier frames again and stores the count. */
    recount,

    find: (submissionId: string): Promise<FingerprintRow | null> =>
      db.submissionFingerprint.findUnique({ where: { submissionId } }),

    findMany: (submissionIds: readonly string[]): Promise<FingerprintRow[]> =>
      submissionIds.length === 0
        ? Promise.resolve([])
        : db.submissionFingerprint.findMany({ where: { submissionId: { in: [...submissionIds] } } }),

    /** The closest earlier frames, best first (distance, then newest), at most MAX_SIMILAR. */
    async search(row: FingerprintRow, settings: SimilaritySettings = DEFAULT_SIMILARITY): Promise<SimilarMatch[]> {
      const rows = await db.$queryRaw<{ submission_id: string; distance: number }[]>(
        searchSql(row, originOf(row, settings), settings, 'matches'),
      );
      return rows.map((r) => ({ submissionId: r.submission_id, distance: Number(r.distance) }));
    },

    /** Fingerprinted frames waiting for review, oldest first, after a cursor (to recount them). */
    waitingForReview: (input: { afterId?: string; limit: number }): Promise<FingerprintRow[]> =>
      db.submissionFingerprint.findMany({
        where: {
          submission: { status: 'needs_review' },
          ...(input.afterId ? { submissionId: { gt: input.afterId } } : {}),
        },
        orderBy: { submissionId: 'asc' },
        take: input.limit,
      }),

    /** Frames by id, those inside the scope, with their channel/agent slugs and media (to show matches). */
    frames: (ids: readonly string[], scope: ChannelScope): Promise<SubmissionWithMedia[]> =>
      ids.length === 0
        ? Promise.resolve([])
        : db.submission.findMany({
            where: { id: { in: [...ids] }, ...submissionInScope(scope) },
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
