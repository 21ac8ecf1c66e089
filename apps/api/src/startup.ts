import { join } from 'node:path';
import { describeStorageProblem, type StorageProblem, sweepStaleFiles } from '@framedesk/storage';
import type { ApiDependencies } from './dependencies';

/**
 * Run at start: removes what a killed API left behind — the storage driver's temporary objects
 * of image writes that never finished, and spool files of earlier versions that spooled images
 * before storing them. Anything younger than the longest a request body may take to arrive
 * (REQUEST_TIMEOUT_SECONDS) may belong to another instance's live request and is kept.
 */
export async function sweepAtStart(deps: Pick<ApiDependencies, 'settings' | 'config' | 'storage'>): Promise<number> {
  const olderThan = new Date(Date.now() - deps.settings.REQUEST_TIMEOUT_SECONDS * 1000);
  const temporary = await deps.storage.sweepTemporary(deps.config.storage.vendor_originals_bucket, olderThan);
  const spooled = await sweepStaleFiles(join(deps.settings.STORAGE_FS_ROOT, '.spool'), olderThan);
  return temporary + spooled;
}

/**
 * Run at start, before anything else touches storage: what is wrong with it, as the one line
 * `/readyz` serves (naming the setting and the fix), or null when the bucket answers.
 */
export async function storageProblemAtStart(
  deps: Pick<ApiDependencies, 'config' | 'storage'>,
): Promise<StorageProblem | null> {
  const bucket = deps.config.storage.vendor_originals_bucket;
  try {
    await deps.storage.ping(bucket);
    return null;
  } catch (error) {
    return describeStorageProblem(error, deps.storage.driver, bucket);
  }
}
