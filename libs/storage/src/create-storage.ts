import type { Settings } from '@framedesk/config';
import { tracingEnabled } from '@framedesk/observability';
import { createFsStorage } from './fs.storage';
import { createS3Storage } from './s3.storage';
import type { ObjectStorage } from './storage';
import { tracedStorage } from './traced-storage';

export type StorageSettings = Pick<
  Settings,
  | 'STORAGE_DRIVER'
  | 'STORAGE_FS_ROOT'
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
>;

/** The storage driver the settings select (`STORAGE_DRIVER`), with spans when tracing is on. */
export function createStorage(settings: StorageSettings): ObjectStorage {
  const storage = createDriver(settings);
  return tracingEnabled() ? tracedStorage(storage) : storage;
}

function createDriver(settings: StorageSettings): ObjectStorage {
  switch (settings.STORAGE_DRIVER) {
    case 'fs':
      return createFsStorage(settings.STORAGE_FS_ROOT);
    case 's3':
      return createS3Storage({
        endpoint: settings.S3_ENDPOINT,
        region: settings.S3_REGION,
        accessKeyId: settings.S3_ACCESS_KEY_ID,
        secretAccessKey: settings.S3_SECRET_ACCESS_KEY,
        forcePathStyle: settings.S3_FORCE_PATH_STYLE,
      });
  }
}
