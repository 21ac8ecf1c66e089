import { randomUUID } from 'node:crypto';
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
    listForSubmission: (submissionId: string): Promise<MediaObjectRow[]> =>
      db.mediaObject.findMany({ where: { submissionId }, orderBy: [{ kind: 'asc' }, { name: 'asc' }] }),
    find: (submissionId: string, kind: MediaObjectKind, name: string): Promise<MediaObjectRow | null> =>
      db.mediaObject.findUnique({ where: { submissionId_kind_name: { submissionId, kind, name } } }),
  };
}
