import type { Readable } from 'node:stream';
import { withSpan } from '@framedesk/observability';

export interface StoredObject {
  readonly byteSize: number;
  /** Hex SHA-256 of the bytes, computed while writing. */
  readonly sha256: string;
}

/** Bytes `start`..`end` of an object, both inclusive (an HTTP `Range`'s meaning). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface GetOptions {
  /** Read only these bytes from the store (fs: a positioned read; S3: a `Range` request). */
  readonly range?: ByteRange;
}

export interface PutOptions {
  readonly contentType: string;
  /** Refuse (and keep nothing) past this many bytes. */
  readonly maxBytes?: number;
}

/** One object of a listing. */
export interface ListedObject {
  readonly key: string;
  readonly byteSize: number;
  readonly lastModified: Date;
}

export interface ListOptions {
  /** Only keys starting with this (e.g. `originals/`). */
  readonly prefix: string;
  /** The `cursor` of the previous page; absent for the first. */
  readonly cursor?: string | null;
  /** Most objects in one page (default and maximum 1000, S3's page). */
  readonly limit?: number;
}

export interface ListPage {
  /** In key order. */
  readonly objects: readonly ListedObject[];
  /** Pass back for the next page; null when this was the last. */
  readonly cursor: string | null;
}

/**
 * Object storage for originals, variants and posters. Writes are atomic: no reader ever sees a
 * half-written object, and a failed write leaves nothing behind.
 */
export interface ObjectStorage {
  readonly driver: 'fs' | 's3';
  put(bucket: string, key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObject>;
  /**
   * The object's bytes, or only `options.range` of them (the store reads no others); throws
   * ObjectNotFoundError when absent.
   */
  get(bucket: string, key: string, options?: GetOptions): Promise<Readable>;
  stat(bucket: string, key: string): Promise<{ byteSize: number } | null>;
  delete(bucket: string, key: string): Promise<void>;
  /**
   * One page of the bucket's objects under a prefix, in key order (the consistency check walks
   * a bucket with it). Temporary objects of unfinished writes are not listed.
   */
  list(bucket: string, options: ListOptions): Promise<ListPage>;
  /**
   * Removes the temporary objects of writes that never finished (a process killed mid-upload)
   * and started before `olderThan`; returns how many. Writes still in flight elsewhere are newer.
   * Only writes of this interface: resumable-upload partials in the same bucket are not touched.
   */
  sweepTemporary(bucket: string, olderThan: Date): Promise<number>;
  /** Succeeds when the store is reachable and the bucket writable (readiness). */
  ping(bucket: string): Promise<void>;
}

export class ObjectNotFoundError extends Error {
  constructor(bucket: string, key: string) {
    super(`no object ${key} in ${bucket}`);
    this.name = 'ObjectNotFoundError';
  }
}

export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/** Reads a whole object into memory, refusing past `maxBytes` (for images the worker decodes anyway). */
export function readObject(storage: ObjectStorage, bucket: string, key: string, maxBytes?: number): Promise<Buffer> {
  return withSpan('storage.read', { 'framedesk.storage.bucket': bucket, 'framedesk.storage.key': key }, async () => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of await storage.get(bucket, key)) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      bytes += buffer.length;
      if (maxBytes !== undefined && bytes > maxBytes) throw new ObjectTooLargeError(maxBytes);
      chunks.push(buffer);
    }
    return Buffer.concat(chunks);
  });
}
