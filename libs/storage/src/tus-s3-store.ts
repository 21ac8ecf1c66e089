import type { Readable } from 'node:stream';
import { type Options, S3Store } from '@tus/s3-store';
import type { Upload } from '@tus/utils';

/** Metadata on the `.part` object: the offset of the whole parts it follows. */
const BASE_OFFSET = 'tus-base-offset';

const isNotFound = (error: unknown) =>
  typeof error === 'object' &&
  error !== null &&
  ['NotFound', 'NoSuchKey'].includes((error as { name?: string }).name ?? '');

/**
 * `@tus/s3-store` with no window in which acknowledged bytes exist nowhere. Upstream, a `PATCH`
 * downloads the upload's incomplete part (`<id>.part`, bytes short of a 5 MiB part), deletes it,
 * then stores those bytes again with the new ones: a process killed in between loses them. Here
 * the old `.part` is never deleted first. The new bytes replace it in one PUT (an incomplete part
 * again) or go into the next whole part; a `.part` records the offset of the whole parts it
 * follows, so once a whole part holds its bytes it no longer counts (it is stale) and is removed
 * after the write. Part uploads run one at a time, so "the whole parts so far" is well defined
 * when an incomplete part is stored. A reader can only ever under-count (the client re-sends).
 */
export class DurableS3Store extends S3Store {
  constructor(options: Options) {
    super({ ...options, maxConcurrentPartUploads: 1 });
  }

  private async wholePartsOffset(id: string): Promise<number> {
    return (await this.retrieveParts(id)).reduce((sum, part) => sum + (part.Size ?? 0), 0);
  }

  /** Whether a `.part` with this metadata follows the whole parts stored now. */
  private async follows(id: string, metadata: Record<string, string> | undefined): Promise<boolean> {
    const base = metadata?.[BASE_OFFSET];
    // A `.part` written before this store existed: trust it, as upstream does.
    if (base === undefined) return true;
    return Number(base) === (await this.wholePartsOffset(id));
  }

  protected override async uploadIncompletePart(id: string, readStream: Readable): Promise<string> {
    const base = await this.wholePartsOffset(id);
    const data = await this.client.putObject({
      Bucket: this.bucket,
      Key: this.partKey(id, true),
      Body: readStream,
      Metadata: { [BASE_OFFSET]: String(base) },
      Tagging: this.useCompleteTag('false'),
    });
    return data.ETag as string;
  }

  protected override async getIncompletePart(id: string): Promise<Readable | undefined> {
    try {
      const data = await this.client.getObject({ Bucket: this.bucket, Key: this.partKey(id, true) });
      if (await this.follows(id, data.Metadata)) return data.Body as Readable;
      (data.Body as Readable | undefined)?.destroy();
      return undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  protected override async getIncompletePartSize(id: string): Promise<number | undefined> {
    try {
      const head = await this.client.headObject({ Bucket: this.bucket, Key: this.partKey(id, true) });
      return (await this.follows(id, head.Metadata)) ? head.ContentLength : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Upstream calls this before the bytes are stored again: keep them until they are. */
  protected override async deleteIncompletePart(): Promise<void> {}

  /**
   * Upstream answers FILE_NOT_FOUND for any failure to read an upload's metadata, an outage
   * included: a HEAD while S3 was down said 404 and the client gave the upload up (the radosgw
   * drill). Only S3's own "no such key" means not found; anything else is thrown as it is.
   */
  override async getUpload(id: string): Promise<Upload> {
    try {
      await this.getMetadata(id); // cached on success: upstream reads it from the cache
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return super.getUpload(id);
  }

  override async write(src: Readable, id: string, offset: number): Promise<number> {
    const newOffset = await super.write(src, id, offset);
    // A `.part` that whole parts have overtaken (or the finished upload's) is dropped now.
    if ((await this.getIncompletePartSize(id).catch(() => undefined)) === undefined) {
      await this.client.deleteObject({ Bucket: this.bucket, Key: this.partKey(id, true) }).catch(() => undefined);
    }
    return newOffset;
  }
}
