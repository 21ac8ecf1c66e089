import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '@framedesk/db';

/** Where an upload session's partial bytes may lie (the local provider's receiving end). */
export interface UploadPartialStores {
  readonly db: Database;
  /** Deletes the session's resumable (tus) partial, whatever its state; no error when there is none. */
  readonly discardTus: (uploadId: string) => Promise<void>;
  /** The basic uploads' spool (`STORAGE_FS_ROOT/.uploads`): files `<upload id>.<random>.basic`. */
  readonly spoolDir: string;
  readonly now?: () => Date;
}

/** The spool file name of a basic upload to session `uploadId`. */
export const isBasicSpoolFileOf = (uploadId: string, name: string) =>
  name.startsWith(`${uploadId}.`) && name.endsWith('.basic');

/**
 * Deletes the partial bytes of an upload session that will not finish (expired, failed, erased):
 * its tus partial and any basic-upload spool file here, then records it, so the bytes stop
 * counting against the agent's quota. Safe to repeat. A request still writing a spool file fails
 * (its session has ended anyway).
 */
export async function deleteUploadPartials(stores: UploadPartialStores, uploadId: string): Promise<void> {
  await stores.discardTus(uploadId);
  for (const name of await readdir(stores.spoolDir).catch(() => [] as string[])) {
    if (isBasicSpoolFileOf(uploadId, name)) await rm(join(stores.spoolDir, name), { force: true });
  }
  await stores.db.repos.mediaUploads.markPartialsDeleted(uploadId, (stores.now ?? (() => new Date()))());
}
