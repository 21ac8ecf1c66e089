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

export function mediaObjectsRepository(db: DbClient) {
  return {
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
      const unique = [...new Map(inputs.map((i) => [`${i.submissionId}\u0000${i.kind}\u0000${i.name}`, i])).values()];
      if (unique.length === 0) return 0;
      const rows = unique.map(
        (i) =>
          Prisma.sql`(${randomUUID()}, ${i.submissionId}, ${i.kind}, ${i.name}, ${i.bucket}, ${i.key}, ${i.contentType},
            ${BigInt(i.byteSize)}, ${i.width ?? null}::int, ${i.height ?? null}::int, ${i.sha256 ?? null}::text)`,
      );
      return db.$executeRaw`
        INSERT INTO media_objects (id, submission_id, kind, name, bucket, key, content_type, byte_size, width, height, sha256)
        VALUES ${Prisma.join(rows)}
        ON CONFLICT (submission_id, kind, name) DO UPDATE SET
          bucket = EXCLUDED.bucket, key = EXCLUDED.key, content_type = EXCLUDED.content_type,
          byte_size = EXCLUDED.byte_size, width = EXCLUDED.width, height = EXCLUDED.height, sha256 = EXCLUDED.sha256`;
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
