import type { Readable } from 'node:stream';
import type { ProjectConfig } from '@framedesk/config';
import type { Database, MediaUploadWithSubmission } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import type { SniffedVideo } from '@framedesk/media';
import type { JobOrigin, QueueProducer } from '@framedesk/queues';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';

export interface CompletedUpload {
  readonly uploadId: string;
  readonly submissionId: string;
  readonly byteSize: number;
  readonly status: 'media_processing';
}

export interface UploadCompletionDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly queues: Pick<QueueProducer, 'enqueue'>;
  readonly config: Pick<ProjectConfig, 'storage'>;
  readonly now: () => Date;
  readonly log?: { warn(obj: object, msg: string): void };
  readonly transitions?: { transitioned(from: string, to: string, mediaType: string): void };
}

/**
 * All bytes are here: the original goes to the originals bucket, then (in one transaction)
 * the session is marked complete, the original recorded and the submission moved to
 * `media_processing`; the probe job is enqueued last (the reconciler covers a lost enqueue).
 */
export async function completeVideoUpload(
  deps: UploadCompletionDeps,
  upload: MediaUploadWithSubmission,
  body: Readable,
  sniffed: SniffedVideo,
  origin?: JobOrigin,
): Promise<CompletedUpload> {
  const bucket = deps.config.storage.vendor_originals_bucket;
  const key = storageKeys.original(upload.submissionId, sniffed.extension);
  const stored = await deps.storage.put(bucket, key, body, {
    contentType: sniffed.mimeType,
    maxBytes: Number(upload.byteSize),
  });
  const at = deps.now();
  await deps.db
    .transaction(async (repos) => {
      if (!(await repos.mediaUploads.markCompleted(upload.id, at))) {
        throw new DomainError('upload_already_completed', 'This upload session has already received its media.');
      }
      await repos.mediaUploads.recordProgress(upload.id, stored.byteSize);
      await repos.mediaObjects.upsert({
        submissionId: upload.submissionId,
        kind: 'original',
        name: 'original',
        bucket,
        key,
        contentType: sniffed.mimeType,
        byteSize: stored.byteSize,
        sha256: stored.sha256,
      });
      const moved = await repos.submissions.transition({
        id: upload.submissionId,
        to: 'media_processing',
        actor: { type: 'system' },
        onlyFrom: ['waiting_for_upload'],
        reason: 'upload complete',
        data: { upload_id: upload.id, byte_size: stored.byteSize, content_type: sniffed.mimeType },
      });
      if (!moved.ok && moved.current === 'failed')
        throw new DomainError(
          'upload_expired',
          'The upload session expired while the bytes arrived; create a new one.',
        );
      if (!moved.ok) throw new DomainError('upload_already_completed', 'This upload session no longer accepts media.');
    })
    .catch(async (error: unknown) => {
      // Lost to expiry: the copy just stored belongs to no one. (Lost to a twin upload: it is the twin's key; keep it.)
      if (error instanceof DomainError && error.code === 'upload_expired')
        await deps.storage.delete(bucket, key).catch(() => undefined);
      throw error;
    });
  deps.transitions?.transitioned('waiting_for_upload', 'media_processing', 'video');
  try {
    await deps.queues.enqueue('video.process', { submissionId: upload.submissionId }, origin ? { origin } : {});
  } catch (error) {
    deps.log?.warn(
      { err: error, submission_id: upload.submissionId },
      'video.process enqueue failed; the reconciler will retry',
    );
  }
  return {
    uploadId: upload.id,
    submissionId: upload.submissionId,
    byteSize: stored.byteSize,
    status: 'media_processing',
  };
}
