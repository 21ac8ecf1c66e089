import { join } from 'node:path';
import { DeleteObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import { FileStore } from '@tus/file-store';
import type { MetadataValue } from '@tus/s3-store';
import { type DataStore, IoRedisKvStore, MemoryKvStore } from '@tus/utils';
import type { Redis } from 'ioredis';
import type { StorageSettings } from './create-storage';
import { s3ClientConfig } from './s3.storage';
import { DurableS3Store } from './tus-s3-store';

export interface TusStoreOptions {
  /** Bucket (s3) that holds partial uploads and their multipart state. */
  readonly bucket: string;
  /**
   * Upload metadata is cached here under `prefix`, so every API instance sees one state. Without
   * it (a one-off `discard` from the CLI), S3 metadata is read from the bucket.
   */
  readonly redis?: Redis;
  readonly prefix: string;
  /** Unfinished uploads older than this are removed by `deleteExpired`. */
  readonly expirationMs: number;
}

export interface TusStore {
  readonly store: DataStore;
  /** Forgets an upload, finished or not (a finished S3 upload is no multipart upload any more). */
  discard(id: string): Promise<void>;
}

/**
 * Where resumable (tus) partials live, reachable by every API instance: with `s3`, S3
 * multipart uploads in `bucket` (`@tus/s3-store` made durable by `DurableS3Store`, metadata
 * cached in Redis); with `fs`, files
 * under `STORAGE_FS_ROOT/.tus` (`@tus/file-store`) — a shared volume when the instances run
 * on different machines.
 */
export function createTusStore(settings: StorageSettings, options: TusStoreOptions): TusStore {
  if (settings.STORAGE_DRIVER === 's3') {
    const clientConfig = s3ClientConfig({
      endpoint: settings.S3_ENDPOINT,
      region: settings.S3_REGION,
      accessKeyId: settings.S3_ACCESS_KEY_ID,
      secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
      forcePathStyle: settings.S3_FORCE_PATH_STYLE,
    });
    const cache = options.redis
      ? new IoRedisKvStore<MetadataValue>(options.redis, `${options.prefix}:tus-s3:`)
      : new MemoryKvStore<MetadataValue>();
    const store = new DurableS3Store({
      s3ClientConfig: { ...clientConfig, bucket: options.bucket },
      // Object tags (for lifecycle-based expiry) are not implemented by R2: expire
      // with deleteExpired and a bucket rule that aborts incomplete multipart uploads instead.
      useTags: false,
      cache,
      expirationPeriodInMilliseconds: options.expirationMs,
    });
    const client = new S3Client(clientConfig);
    return {
      store,
      async discard(id) {
        // remove() aborts the multipart upload first, which a completed one no longer is.
        await store.remove(id).catch(() => undefined);
        await client.send(
          new DeleteObjectsCommand({
            Bucket: options.bucket,
            Delete: { Objects: [{ Key: id }, { Key: `${id}.info` }, { Key: `${id}.part` }], Quiet: true },
          }),
        );
        await cache.delete(id);
      },
    };
  }
  const store = new FileStore({
    directory: join(settings.STORAGE_FS_ROOT, '.tus'),
    expirationPeriodInMilliseconds: options.expirationMs,
  });
  return { store, discard: (id) => store.remove(id).catch(() => undefined) };
}
