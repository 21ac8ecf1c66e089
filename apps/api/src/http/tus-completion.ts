import type { Readable } from 'node:stream';
import type { MediaUploadWithSubmission } from '@framedesk/db';
import type { VideoUploadService } from '@framedesk/submissions';
import type { Locker } from '@tus/utils';
import { isStoredObjectMissing, isTusNotFound, type SessionTusStore } from './tus-store';

export interface TusCompletionDeps {
  readonly uploads: VideoUploadService;
  readonly store: SessionTusStore;
  readonly locker: Locker;
}

/** What a request that completes an upload knows about itself. */
export interface Asker {
  readonly token: string;
  readonly requestId: string | undefined;
}

/**
 * The upload's life outside tus's own handlers, each step under the upload's lock: creating it
 * in the store, and completing it once every byte is stored. tus releases its lock before
 * `onUploadFinish`, so the last PATCH's completion takes the lock again here, as a HEAD's does:
 * of two askers, one completes and the other finds the session complete (409), never both.
 */
export function tusCompletion(deps: TusCompletionDeps) {
  async function underLock<T>(id: string, work: () => Promise<T>): Promise<T> {
    const lock = deps.locker.newLock(id);
    await lock.lock(new AbortController().signal, () => undefined);
    try {
      return await work();
    } finally {
      await lock.unlock();
    }
  }

  /**
   * The stored upload, or null when the store counts it complete but its object is gone (an S3
   * multipart completion cut by a storage outage: the upload no longer exists, nor its object).
   * Such an upload starts again from 0: reported complete, it would refuse bytes forever.
   */
  async function storedOrRestarted(session: MediaUploadWithSubmission): Promise<Readable | null> {
    try {
      return await deps.store.read(session.id);
    } catch (error) {
      if (!isStoredObjectMissing(error)) throw error;
    }
    await deps.store.discard(session.id);
    await deps.store.ensure(session.id, Number(session.byteSize));
    await deps.uploads.recordProgress(session.id, 0);
    return null;
  }

  /**
   * Completes the upload if all its bytes are stored. The session is read again under the lock
   * (409 if an asker that held it first completed it). Returns whether this call completed it.
   */
  function complete(session: MediaUploadWithSubmission, asker: Asker): Promise<boolean> {
    return underLock(session.id, async () => {
      const open = await deps.uploads.authorize(session.id, asker.token);
      const upload = await deps.store.getUpload(open.id);
      if (upload.size === undefined || upload.offset !== upload.size) return false;
      const stored = await storedOrRestarted(open);
      if (!stored) return false;
      await deps.uploads.completeStored(open, stored, { requestId: asker.requestId });
      await deps.store.discard(open.id).catch(() => undefined);
      return true;
    });
  }

  return {
    complete,

    /** tus needs the upload to exist; the session URL is usable before any POST (as before). */
    async ensureCreated(session: MediaUploadWithSubmission): Promise<void> {
      try {
        await deps.store.getUpload(session.id);
        return;
      } catch (error) {
        if (!isTusNotFound(error)) throw error;
      }
      await underLock(session.id, () => deps.store.ensure(session.id, Number(session.byteSize)));
    },

    /**
     * A HEAD on an upload whose bytes are all stored but whose session is still open (the
     * completion after the last PATCH failed: storage or PostgreSQL down, the instance killed)
     * completes it, so "all bytes here" is never answered for media the service has not taken
     * in. Returns whether it completed one; throws (503) if it cannot, 409 if another did.
     */
    async finishStored(session: MediaUploadWithSubmission, asker: Asker): Promise<boolean> {
      let upload;
      try {
        upload = await deps.store.getUpload(session.id);
      } catch (error) {
        // Nothing stored for it yet (its creation did not get through): not finished, and tus
        // answers the HEAD itself. Thrown, tus's own error left the API as a 500.
        if (isTusNotFound(error)) return false;
        throw error;
      }
      if (upload.size === undefined || upload.offset !== upload.size) return false;
      return complete(session, asker);
    },
  };
}

export type TusCompletion = ReturnType<typeof tusCompletion>;
