import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ProjectConfig } from '@framedesk/config';
import type { Database, MediaUploadWithSubmission } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { type SniffedVideo, sniffVideoContainer, VIDEO_SNIFF_BYTES } from '@framedesk/media';
import type { JobOrigin, QueueProducer } from '@framedesk/queues';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';
import type { Locker } from '@tus/utils';
import { peekHead } from './stream-head';
import { failExpiredUpload } from './upload-expiry';
import { deleteUploadPartials } from './upload-partials';

export interface VideoUploadServiceDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly queues: Pick<QueueProducer, 'enqueue'>;
  readonly config: Pick<ProjectConfig, 'media' | 'storage'>;
  /** Where basic (one-request) uploads wait until complete (never the originals bucket). */
  readonly spoolDir: string;
  /** One writer per upload session across every API instance (tus and basic share it). */
  readonly locker: Locker;
  /** Drops the resumable (tus) partial of a session that can no longer finish. */
  readonly dropPartial?: (uploadId: string) => Promise<void>;
  /** Removes tus partials past their expiry; returns how many. */
  readonly sweepPartials?: () => Promise<number>;
  readonly now?: () => Date;
  readonly log?: { warn(obj: object, msg: string): void };
  /** Counts the status change this service makes inside its own transaction (libs/observability's pipeline metrics). */
  readonly transitions?: { transitioned(from: string, to: string, mediaType: string): void };
}

export interface CompletedUpload {
  readonly uploadId: string;
  readonly submissionId: string;
  readonly byteSize: number;
  readonly status: 'media_processing';
}

/** The spool is swept at most this often, on the back of an upload request (no timers). */
const SWEEP_EVERY_MS = 10 * 60_000;
/** A basic-upload spool file older than this was left by a crash. */
const BASIC_LEFTOVER_MS = 3600_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Fails past `limit` bytes, before writing them. */
function limiter(limit: number) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit)
        return callback(
          new DomainError('payload_too_large', 'The upload is larger than the byte_size declared for this session.'),
        );
      callback(null, chunk);
    },
  });
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/**
 * Streams `body` into `path` through `limit`. The file is opened before the first byte and
 * closed before this returns, even on error, so a caller's `rm` never races a lazy open.
 */
async function writeLimited(path: string, flags: 'a' | 'wx', body: Readable, limit: number): Promise<void> {
  const out = (await open(path, flags)).createWriteStream();
  try {
    await pipeline(body, limiter(limit), out);
  } finally {
    // The stream closes its file handle on finish or destroy; wait for that.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
  }
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(VIDEO_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, VIDEO_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The local provider's receiving end (DESIGN.md §5): one-time-token uploads, basic (one
 * multipart file, spooled here) or tus (resumable, served by `@tus/server` over a store every
 * instance reaches); complete media moves to the originals bucket and the submission to
 * `media_processing` by itself.
 */
export function createVideoUploadService(deps: VideoUploadServiceDeps) {
  const now = deps.now ?? (() => new Date());
  let lastSweep = 0;

  /**
   * Drops bytes nobody will finish: tus partials past their expiry (in the shared tus store)
   * and basic-upload files left in this instance's spool by a crash mid-request.
   */
  async function sweepSpool(): Promise<number> {
    const at = now().getTime();
    let removed = (await deps.sweepPartials?.()) ?? 0;
    for (const name of await readdir(deps.spoolDir).catch(() => [] as string[])) {
      if (!name.endsWith('.basic')) continue;
      const path = join(deps.spoolDir, name);
      if (at - (await stat(path).catch(() => ({ mtimeMs: at }))).mtimeMs > BASIC_LEFTOVER_MS) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Refuses a video container that is not what the bytes are, or not allowed. */
  function checkContainer(head: Buffer): SniffedVideo {
    const sniffed = sniffVideoContainer(head);
    if (!sniffed)
      throw new DomainError('unsupported_media_type', 'The uploaded bytes are not a video (MP4, QuickTime or WebM).');
    if (!deps.config.media.allowed_video_mime_types.includes(sniffed.mimeType)) {
      throw new DomainError(
        'unsupported_media_type',
        `The uploaded video is ${sniffed.mimeType}, which is not an allowed video type.`,
      );
    }
    return sniffed;
  }

  async function expire(upload: MediaUploadWithSubmission): Promise<void> {
    await failExpiredUpload(deps.db, upload.submissionId);
    const stores = {
      db: deps.db,
      discardTus: deps.dropPartial ?? (async () => undefined),
      spoolDir: deps.spoolDir,
      now,
    };
    await deleteUploadPartials(stores, upload.id).catch(() => undefined);
  }

  return {
    /** The session this URL names, if its token matches and it still takes bytes (404 / 409 / 410 otherwise). */
    async authorize(uploadId: string, token: string | undefined): Promise<MediaUploadWithSubmission> {
      if (now().getTime() - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = now().getTime();
        void sweepSpool().catch((error: unknown) => deps.log?.warn({ err: error }, 'upload spool sweep failed'));
      }
      const upload = await deps.db.repos.mediaUploads.findById(uploadId);
      const matches =
        upload?.tokenHash && token && timingSafeEqual(sha256(token), Buffer.from(upload.tokenHash, 'hex'));
      if (!upload || !matches) throw new DomainError('not_found', 'No upload session matches this URL.');
      if (upload.completedAt)
        throw new DomainError('upload_already_completed', 'This upload session has already received its media.');
      const status = upload.submission.status;
      if (status === 'failed' && upload.submission.failureCode === 'upload_expired')
        throw new DomainError('upload_expired', 'The upload session has expired; create a new one.');
      if (status !== 'waiting_for_upload')
        throw new DomainError('upload_already_completed', 'This upload session no longer accepts media.');
      if (upload.expiresAt.getTime() <= now().getTime()) {
        await expire(upload);
        throw new DomainError(
          'upload_expired',
          `The upload session expired at ${upload.expiresAt.toISOString()}; create a new one.`,
        );
      }
      return upload;
    },

    /** Basic protocol: the whole file in one stream. Nothing is kept unless it is all there and a video. */
    async receiveFile(upload: MediaUploadWithSubmission, body: Readable, origin?: JobOrigin): Promise<CompletedUpload> {
      // One upload per session at a time, on any instance: two files must never race for one original.
      const lock = deps.locker.newLock(upload.id);
      await lock.lock(new AbortController().signal, () => {
        body.destroy(new Error('the upload lock was lost'));
      });
      const path = join(deps.spoolDir, `${upload.id}.${randomBytes(6).toString('hex')}.basic`);
      try {
        await mkdir(deps.spoolDir, { recursive: true });
        await writeLimited(path, 'wx', body, Number(upload.byteSize));
        const size = await sizeOf(path);
        if (size !== Number(upload.byteSize)) {
          throw new DomainError(
            'invalid_request',
            `The upload ended after ${size} of the ${upload.byteSize} bytes declared for this session.`,
          );
        }
        return await this.complete(upload, createReadStream(path), checkContainer(await readHead(path)), origin);
      } finally {
        await lock.unlock();
        await rm(path, { force: true });
      }
    },

    sweepSpool,
    checkContainer,

    /** Bytes received so far, for the session's resource. */
    async recordProgress(uploadId: string, receivedBytes: number): Promise<void> {
      await deps.db.repos.mediaUploads.recordProgress(uploadId, receivedBytes);
    },

    /** A tus upload's last byte landed: `body` is the whole upload, read back from the tus store. */
    async completeStored(
      upload: MediaUploadWithSubmission,
      stored: Readable,
      origin?: JobOrigin,
    ): Promise<CompletedUpload> {
      const { head, body } = await peekHead(stored, VIDEO_SNIFF_BYTES);
      return this.complete(upload, body, checkContainer(head), origin);
    },

    /**
     * All bytes are here: the original goes to the originals bucket, then (in one transaction)
     * the session is marked complete, the original recorded and the submission moved to
     * `media_processing`; the probe job is enqueued last (the reconciler covers a lost enqueue).
     */
    async complete(
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
      const at = now();
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
          if (!moved.ok)
            throw new DomainError('upload_already_completed', 'This upload session no longer accepts media.');
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
    },
  };
}

export type VideoUploadService = ReturnType<typeof createVideoUploadService>;
