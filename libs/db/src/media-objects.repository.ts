import { randomUUID } from 'node:crypto';
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';

/** `external`: delivered by a provider (its URL in `key`, bucket `vendor_stream`), nothing stored by us. */
export type MediaObjectKind = 'original' | 'variant' | 'poster' | 'external';

export interface MediaObjectRow {
  readonly id: string;
  readonly submissionId: string;
  readonly kind: string;
  readonly name: string;
  readonly bucket: string;
  readonly key: string;
  readonly contentType: string;
  readonly byteSize: bigint;
  readonly width: number | null;
  readonly height: number | null;
  readonly sha256: string | null;
  readonly createdAt: Date;
}

export interface NewMediaObject {
  readonly submissionId: string;
  readonly kind: MediaObjectKind;
  readonly name: string;
  readonly bucket: string;
  readonly key: string;
  readonly contentType: string;
  readonly byteSize: number;
  readonly width?: number | null;
  readonly height?: number | null;
  readonly sha256?: string | null;
}

const COLUMNS = Prisma.raw(
  'id, submission_id, kind, name, bucket, key, content_type, byte_size, width, height, sha256',
);
const ON_CONFLICT = Prisma.raw(`ON CONFLICT (submission_id, kind, name) DO UPDATE SET
  bucket = EXCLUDED.bucket, key = EXCLUDED.key, content_type = EXCLUDED.content_type,
  byte_size = EXCLUDED.byte_size, width = EXCLUDED.width, height = EXCLUDED.height, sha256 = EXCLUDED.sha256`);

/** One VALUES row per (submission, kind, name), the last entry of a name given twice; typed, so they read alike in an INSERT … SELECT. */
function valuesOf(inputs: readonly NewMediaObject[]): Prisma.Sql[] {
  const unique = [...new Map(inputs.map((i) => [`${i.submissionId}\u0000${i.kind}\u0000${i.name}`, i])).values()];
  return unique.map(
    (i) =>
      Prisma.sql`(${randomUUID()}::text, ${i.submissionId}::text, ${i.kind}::text, ${i.name}::text, ${i.bucket}::text,
        ${i.key}::text, ${i.contentType}::text, ${BigInt(i.byteSize)}::bigint, ${i.width ?? null}::int,
        ${i.height ?? null}::int, ${i.sha256 ?? null}::text)`,
  );
}

export function mediaObjectsRepository(db: DbClient) {
  return {
    /** True when `key` is the recorded original of `submissionId` (a create that referred to it committed). */
    isOriginalOf: async (submissionId: string, key: string): Promise<boolean> => {
      const row = await db.mediaObject.findUnique({
        where: { submissionId_kind_name: { submissionId, kind: 'original', name: 'original' } },
        select: { key: true },
      });
      return row?.key === key;
    },
    /** Records an object; recording the same (submission, kind, name) again replaces it. */
    upsert: (input: NewMediaObject): Promise<MediaObjectRow> => {
      const data = {
        ...input,
        byteSize: BigInt(input.byteSize),
        width: input.width ?? null,
        height: input.height ?? null,
        sha256: input.sha256 ?? null,
      };
      return db.mediaObject.upsert({
        where: { submissionId_kind_name: { submissionId: input.submissionId, kind: input.kind, name: input.name } },
        create: { id: randomUUID(), ...data },
        update: data,
      });
    },
    /**
     * `upsert` for several objects in one statement (one round trip): each (submission, kind,
     * name) is inserted or, if it exists, replaced, as `upsert` would one by one. A name given
     * twice keeps its last entry. Returns how many rows were written.
     */
    upsertMany: async (inputs: readonly NewMediaObject[]): Promise<number> => {
      const rows = valuesOf(inputs);
      if (rows.length === 0) return 0;
      return db.$executeRaw`
        INSERT INTO media_objects (${COLUMNS})
        VALUES ${Prisma.join(rows)}
        ${ON_CONFLICT}`;
    },
    /**
     * The media guard and `upsertMany` of one frame's objects in one statement: locks the frame's
     * row first (FOR UPDATE, as `retention.lockForMedia`) and writes the rows only while its media
     * are neither purged nor erased. What it found; null when there is no such frame.
     */
    upsertManyWhileOpen: async (
      submissionId: string,
      inputs: readonly NewMediaObject[],
    ): Promise<{ purged: boolean; erased: boolean; written: number } | null> => {
      if (inputs.length === 0 || inputs.some((i) => i.submissionId !== submissionId))
        throw new Error('upsertManyWhileOpen: one or more rows, all of the frame');
      const rows = valuesOf(inputs);
      const found = await db.$queryRaw<{ purged: boolean; erased: boolean; written: number }[]>`
        WITH frame AS MATERIALIZED (
          SELECT purged_at IS NOT NULL AS purged, erased_at IS NOT NULL AS erased
            FROM submissions WHERE id = ${submissionId} FOR UPDATE
        ), written AS (
          INSERT INTO media_objects (${COLUMNS})
          SELECT v.* FROM (VALUES ${Prisma.join(rows)}) AS v(${COLUMNS}), frame
           WHERE NOT frame.purged AND NOT frame.erased
          ${ON_CONFLICT}
          RETURNING 1
        )
        SELECT purged, erased, (SELECT count(*) FROM written)::int AS written FROM frame`;
      const frame = found[0];
      return frame ? { purged: frame.purged, erased: frame.erased, written: Number(frame.written) } : null;
    },
    listForSubmission: (submissionId: string): Promise<MediaObjectRow[]> =>
      db.mediaObject.findMany({ where: { submissionId }, orderBy: [{ kind: 'asc' }, { name: 'asc' }] }),
    find: (submissionId: string, kind: MediaObjectKind, name: string): Promise<MediaObjectRow | null> =>
      db.mediaObject.findUnique({ where: { submissionId_kind_name: { submissionId, kind, name } } }),
    /** `find` for serving: nothing of a frame whose media were purged or erased (deletion may be under way). */
    findServed: (submissionId: string, kind: MediaObjectKind, name: string): Promise<MediaObjectRow | null> =>
      db.mediaObject.findFirst({ where: { submissionId, kind, name, submission: { purgedAt: null } } }),
  };
}
