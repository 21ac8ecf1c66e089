import type { Readable } from 'node:stream';
import { DataStore, ERRORS, Upload } from '@tus/utils';

/** The tus extensions served: no deferred length (the session's byte_size is the length). */
const EXTENSIONS = ['creation', 'creation-with-upload', 'termination', 'expiration'];

export const isTusNotFound = (error: unknown) =>
  (error as { status_code?: number } | undefined)?.status_code === ERRORS.FILE_NOT_FOUND.status_code;

/** The store says an upload is complete, but its object is not there (S3 NoSuchKey, a file gone). */
export const isStoredObjectMissing = (error: unknown) => {
  const e = error as { name?: string; code?: string } | undefined;
  return e?.name === 'NoSuchKey' || e?.code === 'ENOENT';
};

/**
 * The shared tus store as the upload routes need it: creation never resets an upload that
 * already exists (a retried or racing POST from another instance keeps the bytes received),
 * and only the extensions we honour are advertised. Everything else is the store's own.
 */
export class SessionTusStore extends DataStore {
  constructor(
    private readonly inner: DataStore,
    /** Forgets an upload whatever its state (finished, partial, or gone). */
    readonly discard: (id: string) => Promise<void>,
  ) {
    super();
    this.extensions = EXTENSIONS.filter((name) => inner.hasExtension(name));
  }

  override async create(upload: Upload): Promise<Upload> {
    try {
      const existing = await this.inner.getUpload(upload.id);
      upload.offset = existing.offset;
      return existing;
    } catch (error) {
      if (!isTusNotFound(error)) throw error;
    }
    return this.inner.create(upload);
  }

  /** Creates the upload with the session's length unless it exists (call under the upload's lock). */
  async ensure(id: string, size: number): Promise<Upload> {
    return this.create(new Upload({ id, size, offset: 0 }));
  }

  override remove(id: string): Promise<void> {
    return this.inner.remove(id);
  }

  override write(stream: Readable, id: string, offset: number): Promise<number> {
    return this.inner.write(stream, id, offset);
  }

  override getUpload(id: string): Promise<Upload> {
    return this.inner.getUpload(id);
  }

  override declareUploadLength(id: string, length: number): Promise<void> {
    return this.inner.declareUploadLength(id, length);
  }

  override deleteExpired(): Promise<number> {
    return this.inner.deleteExpired();
  }

  override getExpiration(): number {
    return this.inner.getExpiration();
  }

  /** The whole upload, once complete. */
  async read(id: string): Promise<Readable> {
    return (this.inner as unknown as { read(id: string): Readable | Promise<Readable> }).read(id);
  }
}
