import { withSpan } from '@framedesk/observability';
import type { ObjectStorage } from './storage';

const attributes = (storage: ObjectStorage, bucket: string, key: string) => ({
  'framedesk.storage.driver': storage.driver,
  'framedesk.storage.bucket': bucket,
  'framedesk.storage.key': key,
});

/**
 * `storage` with a span around each write, open, stat and delete (keys are our ids, never a
 * secret). Only built when tracing is on: without it the driver is used as it is.
 */
export function tracedStorage(storage: ObjectStorage): ObjectStorage {
  return {
    ...storage,
    driver: storage.driver,
    put: (bucket, key, body, options) =>
      withSpan('storage.write', attributes(storage, bucket, key), async () => storage.put(bucket, key, body, options)),
    get: (bucket, key, options) =>
      withSpan('storage.open', attributes(storage, bucket, key), () => storage.get(bucket, key, options)),
    stat: (bucket, key) => withSpan('storage.stat', attributes(storage, bucket, key), () => storage.stat(bucket, key)),
    delete: (bucket, key) =>
      withSpan('storage.delete', attributes(storage, bucket, key), () => storage.delete(bucket, key)),
  };
}
