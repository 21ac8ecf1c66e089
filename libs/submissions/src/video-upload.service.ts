import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ProjectConfig } from '@framedesk/config';
import type { Database, MediaUploadWithSubmission } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { type SniffedVideo, sniffVideoContainer, VIDEO_SNIFF_BYTES } from '@framedesk/media';
import type { JobOrigin, QueueProducer } from '@framedesk/queues';
import type { ObjectStorage } from '@framedesk/storage';
import type { Locker } from '@tus/utils';
import { peekHead } from './stream-head';
import { failExpiredUpload } from './upload-expiry';
import { deleteUploadPartials } from './upload-partials';
import { type CompletedUpload, completeVideoUpload } from './video-upload-complete';
import { readHead, sizeOf, sweepUploadSpool, writeLimited } from './video-upload-spool';

export type { CompletedUpload } from './video-upload-complete';

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

/** The spool is swept at most this often, on the back of an upload request (no timers). */
const SWEEP_EVERY_MS = 10 * 60_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * The local provider's receiving end (DESIGN.md §5): one-time-token uploads, basic (one
 * multipart file, spooled here) or tus (resumable, served by `@tus/server` over a store every
 * instance reaches); complete media moves to the originals bucket and the submission to
 * `media_processing` by itself.
 */
export function createVideoUploadService(deps: VideoUploadServiceDeps) {
  const now = deps.now ?? (() => new Date());
  let lastSweep = 0;

  /** Tus partials past their expiry and basic-upload files a crash left in the spool (video-upload-spool.ts). */
  const sweepSpool = (): Promise<number> =>
    sweepUploadSpool({
      spoolDir: deps.spoolDir,
      now,
      ...(deps.sweepPartials ? { sweepPartials: deps.sweepPartials } : {}),
    });

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

    /** All bytes are here: stored, recorded, moved to `media_processing`, enqueued (video-upload-complete.ts). */
    async complete(
      upload: MediaUploadWithSubmission,
      body: Readable,
      sniffed: SniffedVideo,
      origin?: JobOrigin,
    ): Promise<CompletedUpload> {
      return completeVideoUpload({ ...deps, now }, upload, body, sniffed, origin);
    },
  };
}

export type VideoUploadService = ReturnType<typeof createVideoUploadService>;
