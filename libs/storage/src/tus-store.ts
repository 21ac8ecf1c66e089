import { join } from 'node:path';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { type DataStore, IoRedisKvStore } from '@tus/utils';
import type { Redis } from 'ioredis';
import type { StorageSettings } from './create-storage';
import { s3ClientConfig } from './s3.storage';

export interface TusStoreOptions {
  /** Bucket (s3) that holds partial uploads and their multipart state. */
  readonly bucket: string;
  /** Upload metadata is cached here under `prefix`, so every API instance sees one state. */
  readonly redis: Redis;
  readonly prefix: string;
  /** Unfinished uploads older than this are removed by `deleteExpired`. */
  readonly expirationMs: number;
}

/**
 * Where resumable (tus) partials live, reachable by every API instance: with `s3`, S3
 * multipart uploads in `bucket` (`@tus/s3-store`, metadata cached in Redis); with `fs`, files
 * under `STORAGE_FS_ROOT/.tus` (`@tus/file-store`) — a shared volume when the instances run
 * on different machines.
 */
export function createTusStore(settings: StorageSettings, options: TusStoreOptions): DataStore {
  if (settings.STORAGE_DRIVER === 's3') {
    return new S3Store({
      s3ClientConfig: {
        ...s3ClientConfig({
          endpoint: settings.S3_ENDPOINT,
          region: settings.S3_REGION,
          accessKeyId: settings.S3_ACCESS_KEY_ID,
          secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
          forcePathStyle: settings.S3_FORCE_PATH_STYLE,
        }),
        bucket: options.bucket,
      },
      cache: new IoRedisKvStore(options.redis, `${options.prefix}:tus-s3:`),
      expirationPeriodInMilliseconds: options.expirationMs,
    });
  }
  return new FileStore({
    directory: join(settings.STORAGE_FS_ROOT, '.tus'),
    expirationPeriodInMilliseconds: options.expirationMs,
  });
}
