import type { Database, NewMediaObject, Repositories } from '@framedesk/db';
import type { ObjectStorage } from '@framedesk/storage';

/** Thrown inside the transaction that would record media for an erased or purged frame: nothing of it commits. */
export class MediaClosedError extends Error {
  constructor(
    readonly submissionId: string,
    readonly why: 'erased' | 'purged',
  ) {
    super(`${submissionId} was ${why} while its media were being made`);
    this.name = 'MediaClosedError';
  }
}

/**
 * The first statement of every transaction that records a frame's media (variant, poster and
 * playback rows, its fingerprint): locks the frame's row and refuses (MediaClosedError) when its
 * media were purged or it was erased. A purge and an erasure mark the row under the same lock
 * before they read what to delete, so media are either committed before the mark — and deleted
 * with the rest — or refused here.
 */
export async function assertMediaOpen(repos: Repositories, submissionId: string): Promise<void> {
  const frame = await repos.retention.lockForMedia(submissionId);
  if (frame?.erased) throw new MediaClosedError(submissionId, 'erased');
  if (frame?.purged) throw new MediaClosedError(submissionId, 'purged');
}

/**
 * `assertMediaOpen` and the frame's media rows in one statement (one round trip fewer): the same
 * row lock taken first, the rows written only while the frame is open, MediaClosedError when it
 * was erased or purged meanwhile. The first statement of its transaction, as the guard must be.
 */
export async function recordMediaRows(
  repos: Repositories,
  submissionId: string,
  rows: readonly NewMediaObject[],
): Promise<void> {
  if (rows.length === 0) return assertMediaOpen(repos, submissionId);
  const frame = await repos.mediaObjects.upsertManyWhileOpen(submissionId, rows);
  if (frame?.erased) throw new MediaClosedError(submissionId, 'erased');
  if (frame?.purged) throw new MediaClosedError(submissionId, 'purged');
}

/**
 * Records media in one transaction behind `assertMediaOpen`. Refused: deletes the objects the
 * caller wrote for them (no row records them: they would be orphans of an erased frame) and
 * returns false.
 */
export async function recordMediaOrDiscard(
  deps: { readonly db: Database; readonly storage: Pick<ObjectStorage, 'delete'> },
  submissionId: string,
  written: readonly { readonly bucket: string; readonly key: string }[],
  record: (repos: Repositories) => Promise<void>,
): Promise<boolean> {
  try {
    await deps.db.transaction(async (repos) => {
      await assertMediaOpen(repos, submissionId);
      await record(repos);
    });
    return true;
  } catch (error) {
    if (!(error instanceof MediaClosedError)) throw error;
    await discardWritten(deps.storage, written);
    return false;
  }
}

/** Deletes what was written for a frame found erased or purged (each deletion is idempotent). */
export async function discardWritten(
  storage: Pick<ObjectStorage, 'delete'>,
  written: readonly { readonly bucket: string; readonly key: string }[],
): Promise<void> {
  await Promise.all(written.map((o) => storage.delete(o.bucket, o.key)));
}

/**
 * A `.catch` for work guarded by `assertMediaOpen`: when it was refused, deletes what was written
 * for it and resolves null; any other error is rethrown.
 */
export function discardIfClosed(
  storage: Pick<ObjectStorage, 'delete'>,
  written: readonly { readonly bucket: string; readonly key: string }[],
): (error: unknown) => Promise<null> {
  return async (error) => {
    if (!(error instanceof MediaClosedError)) throw error;
    await discardWritten(storage, written);
    return null;
  };
}
