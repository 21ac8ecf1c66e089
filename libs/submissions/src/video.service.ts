import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ProjectConfig } from '@framedesk/config';
import type { Database, MediaUploadRow, SimilaritySettings, SubmissionRow } from '@framedesk/db';
import { type FailureCode, FAILURE_CODES } from '@framedesk/domain';
import {
  extractPoster,
  InvalidVideoError,
  perceptualHash,
  posterPreview,
  posterTime,
  probeVideo,
  type VideoToolOptions,
} from '@framedesk/media';
import { annotateSpan } from '@framedesk/observability';
import type { JobOrigin, QueueProducer } from '@framedesk/queues';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';
import { finishProcessing } from './system-review';
import type { ProviderNotification, ProviderVideoState, VideoProvider } from '@framedesk/video-provider';
import { recordMediaOrDiscard } from './media-guard';
import { failExpiredUpload } from './upload-expiry';

export interface VideoServiceDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly queues: Pick<QueueProducer, 'enqueue'>;
  readonly provider: VideoProvider;
  readonly config: Pick<ProjectConfig, 'media' | 'storage' | 'approval_defaults'>;
  readonly tools?: VideoToolOptions;
  readonly now?: () => Date;
  /** Fetches a provider's thumbnail (global fetch by default). */
  readonly fetch?: typeof fetch;
  /** What counts as a near-duplicate when the poster's fingerprint is stored. */
  readonly nearDuplicates?: SimilaritySettings;
}

/** What one run of `processVideo` did (logged by the worker, asserted by tests). */
export type VideoOutcome = 'skipped' | 'waiting' | 'processing' | 'needs_review' | 'promoted' | 'rejected' | 'failed';

/** Name of the small WebP made from a video's poster frame. */
export const VIDEO_PREVIEW_VARIANT = 'preview';
const PREVIEW_MAX_SIDE = 640;
const MAX_POSTER_BYTES = 10 * 1024 * 1024;

function failureCodeOf(code: string): FailureCode {
  return (FAILURE_CODES as readonly string[]).includes(code) ? (code as FailureCode) : 'provider_error';
}

/**
 * After the bytes: the local driver probes the original with ffprobe and makes a poster; the
 * cloudflare driver asks Stream (polling with back-off, or a verified notification). Every
 * change goes through the status machine, so repeated jobs and replayed notifications are no-ops.
 */
export function createVideoService(deps: VideoServiceDeps) {
  const now = deps.now ?? (() => new Date());
  const fetchMedia = deps.fetch ?? fetch;
  const bucket = deps.config.storage.vendor_originals_bucket;

  /** `message` is what the agent reads: a stable sentence; tool output goes to the event's `detail` only. */
  async function fail(
    submissionId: string,
    code: FailureCode,
    message: string,
    detail?: string,
  ): Promise<VideoOutcome> {
    const result = await deps.db.transition({
      id: submissionId,
      to: 'failed',
      actor: { type: 'system' },
      // Never out of review: a late or replayed failure cannot undo a decision already made.
      onlyFrom: ['waiting_for_upload', 'media_processing'],
      reason: code,
      patch: { failureCode: code, failureMessage: message },
      ...(detail ? { data: { detail } } : {}),
    });
    return result.ok ? 'failed' : 'skipped';
  }

  async function toProcessing(submission: SubmissionRow, reason: string): Promise<boolean> {
    if (submission.status === 'media_processing') return true;
    const moved = await deps.db.transition({
      id: submission.id,
      to: 'media_processing',
      actor: { type: 'system' },
      onlyFrom: ['waiting_for_upload'],
      reason,
    });
    return moved.ok;
  }

  async function finish(
    submissionId: string,
    patch: { durationMs?: number | null; width?: number | null; height?: number | null },
    data: Record<string, unknown>,
  ): Promise<VideoOutcome> {
    const done = await finishProcessing(deps.db, {
      id: submissionId,
      requiresReview: deps.config.approval_defaults.requires_review,
      reason: 'video processed',
      patch,
      data,
      now: now(),
    });
    return done.ok ? done.to : 'skipped';
  }

  /** Applies a provider's view of a video; the same view twice changes nothing the second time. */
  async function applyState(submission: SubmissionRow, video: ProviderVideoState): Promise<VideoOutcome> {
    switch (video.state) {
      case 'waiting_for_upload':
        return submission.status === 'waiting_for_upload' ? 'waiting' : 'processing';
      case 'media_processing':
        await toProcessing(submission, 'provider received the upload');
        return 'processing';
      case 'ready': {
        if (!(await toProcessing(submission, 'provider received the upload'))) return 'skipped';
        const maxSeconds = deps.config.media.video_max_duration_seconds;
        if (maxSeconds !== undefined && video.durationSeconds !== undefined && video.durationSeconds > maxSeconds) {
          return fail(
            submission.id,
            'duration_exceeded',
            `The video lasts ${video.durationSeconds.toFixed(1)} s; at most ${maxSeconds} s are allowed.`,
          );
        }
        if (!(await storeProviderMedia(submission.id, video))) return 'skipped';
        return finish(
          submission.id,
          {
            durationMs: video.durationSeconds !== undefined ? Math.round(video.durationSeconds * 1000) : null,
            width: video.width ?? null,
            height: video.height ?? null,
          },
          { thumbnail_url: video.thumbnailUrl ?? null, playback_url: video.playbackUrl ?? null },
        );
      }
      case 'failed':
        return fail(submission.id, failureCodeOf(video.failureCode), video.failureMessage);
    }
  }

  /**
   * The poster (as delivered) and its small WebP preview, stored, then recorded with the
   * fingerprint in one transaction behind the erasure guard. False: the frame was erased or
   * purged meanwhile, and what was stored for it is deleted again.
   */
  async function storePoster(
    submissionId: string,
    poster: Buffer,
    width: number | null,
    height: number | null,
    contentType = 'image/jpeg',
  ): Promise<boolean> {
    const preview = await posterPreview(poster, PREVIEW_MAX_SIDE);
    const hash = await perceptualHash(poster).catch(() => null); // undecodable: no fingerprint
    const posterKey = storageKeys.poster(submissionId);
    const previewKey = storageKeys.variant(submissionId, VIDEO_PREVIEW_VARIANT);
    const written = [
      { bucket, key: posterKey },
      { bucket, key: previewKey },
    ];
    const storedPoster = await deps.storage.put(bucket, posterKey, poster, { contentType });
    const storedPreview = await deps.storage.put(bucket, previewKey, preview.data, { contentType: 'image/webp' });
    return recordMediaOrDiscard(deps, submissionId, written, async (repos) => {
      if (hash !== null)
        await repos.fingerprints.save({
          submissionId,
          perceptualHash: hash,
          ...(deps.nearDuplicates ? { settings: deps.nearDuplicates } : {}),
        });
      await repos.mediaObjects.upsert({
        submissionId,
        kind: 'poster',
        name: 'poster',
        bucket,
        key: posterKey,
        contentType,
        byteSize: storedPoster.byteSize,
        sha256: storedPoster.sha256,
        width,
        height,
      });
      await repos.mediaObjects.upsert({
        submissionId,
        kind: 'variant',
        name: VIDEO_PREVIEW_VARIANT,
        bucket,
        key: previewKey,
        contentType: 'image/webp',
        byteSize: storedPreview.byteSize,
        sha256: storedPreview.sha256,
        width: preview.width,
        height: preview.height,
      });
    });
  }

  /**
   * What the provider delivers for a ready video: its thumbnail fetched into storage as the
   * poster (a reviewer's browser and an agent then read it from us), and its playback URL kept
   * as an `external` media object (`variants.playback`). A thumbnail that cannot be fetched
   * leaves the video without a poster; the player still works.
   */
  async function storeProviderMedia(
    submissionId: string,
    video: Extract<ProviderVideoState, { state: 'ready' }>,
  ): Promise<boolean> {
    if (video.thumbnailUrl) {
      try {
        const response = await fetchMedia(video.thumbnailUrl, { signal: AbortSignal.timeout(15_000) });
        const bytes = response.ok ? Buffer.from(await response.arrayBuffer()) : null;
        if (bytes && bytes.length > 0 && bytes.length <= MAX_POSTER_BYTES)
          if (
            !(await storePoster(
              submissionId,
              bytes,
              video.width ?? null,
              video.height ?? null,
              /^image\/(jpeg|png|webp)$/.exec(response.headers.get('content-type') ?? '')?.[0] ?? 'image/jpeg',
            ))
          )
            return false;
      } catch {
        // unreachable or not an image: no poster
      }
    }
    const playbackUrl = video.playbackUrl;
    if (!playbackUrl) return true;
    return recordMediaOrDiscard(deps, submissionId, [], async (repos) => {
      await repos.mediaObjects.upsert({
        submissionId,
        kind: 'external',
        name: 'playback',
        bucket: 'vendor_stream',
        key: playbackUrl,
        contentType: playbackUrl.endsWith('.m3u8') ? 'application/vnd.apple.mpegurl' : 'text/html',
        byteSize: 0,
        sha256: null,
        width: video.width ?? null,
        height: video.height ?? null,
      });
    });
  }

  async function processLocal(submission: SubmissionRow): Promise<VideoOutcome> {
    if (submission.status !== 'media_processing') return 'skipped';
    const original = await deps.db.repos.mediaObjects.find(submission.id, 'original', 'original');
    if (!original) return fail(submission.id, 'invalid_video', 'The uploaded original is missing.');
    const dir = await mkdtemp(join(tmpdir(), 'framedesk-video-'));
    try {
      const path = join(dir, 'original');
      await pipeline(await deps.storage.get(original.bucket, original.key), createWriteStream(path));
      let probe;
      try {
        probe = await probeVideo(path, deps.tools);
      } catch (error) {
        if (error instanceof InvalidVideoError)
          return fail(submission.id, 'invalid_video', error.message, error.detail);
        throw error;
      }
      const maxSeconds = deps.config.media.video_max_duration_seconds;
      if (maxSeconds !== undefined && probe.durationSeconds > maxSeconds) {
        return fail(
          submission.id,
          'duration_exceeded',
          `The video lasts ${probe.durationSeconds.toFixed(1)} s; at most ${maxSeconds} s are allowed.`,
        );
      }
      let poster: Buffer;
      try {
        poster = await extractPoster(path, { ...deps.tools, atSeconds: posterTime(probe.durationSeconds) });
      } catch (error) {
        if (error instanceof InvalidVideoError)
          return fail(submission.id, 'invalid_video', error.message, error.detail);
        throw error;
      }
      if (!(await storePoster(submission.id, poster, probe.width, probe.height))) return 'skipped';
      return finish(
        submission.id,
        { durationMs: Math.round(probe.durationSeconds * 1000), width: probe.width, height: probe.height },
        { codec: probe.codec, container: probe.formatName },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Next poll, backing off with the submission's age: every 5–60 s while the provider works on
   * the video, every 15 s – 5 min while nothing has been uploaded (webhooks usually win).
   */
  async function pollAgain(submission: SubmissionRow, waiting: boolean, origin: JobOrigin): Promise<void> {
    const age = now().getTime() - submission.createdAt.getTime();
    const delay = waiting
      ? Math.min(300_000, Math.max(15_000, Math.round(age / 5)))
      : Math.min(60_000, Math.max(5_000, Math.round(age / 10)));
    const at = new Date(now().getTime() + delay);
    await deps.queues.enqueue(
      'video.process',
      { submissionId: submission.id },
      { at, attempt: `poll-${at.getTime()}`, origin },
    );
  }

  async function processProvider(
    submission: SubmissionRow,
    upload: MediaUploadRow | null,
    origin: JobOrigin,
  ): Promise<VideoOutcome> {
    if (submission.status !== 'waiting_for_upload' && submission.status !== 'media_processing') return 'skipped';
    if (!upload?.providerRef)
      return fail(submission.id, 'provider_error', 'The upload session has no provider video id.');
    const outcome = await applyState(submission, await deps.provider.getVideo(upload.providerRef));
    // Nothing uploaded yet: the expiry job decides when to stop; while bytes exist, keep asking.
    const stillOpen = outcome === 'waiting' && upload.expiresAt.getTime() > now().getTime();
    if (outcome === 'processing' || stillOpen) await pollAgain(submission, stillOpen, origin);
    return outcome;
  }

  return {
    /**
     * The worker's `video.process`: throws on transient errors (BullMQ retries), decides permanent
     * ones. `origin`: the job's, carried on by the next poll.
     */
    async processVideo(submissionId: string, origin: JobOrigin = {}): Promise<VideoOutcome> {
      const submission = await deps.db.repos.submissions.findById(submissionId);
      if (!submission || submission.mediaType !== 'video') return 'skipped';
      annotateSpan({ 'framedesk.agent': submission.agent.slug, 'framedesk.channel': submission.channel.slug });
      if (deps.provider.name === 'local') return processLocal(submission);
      return processProvider(submission, await deps.db.repos.mediaUploads.findBySubmission(submissionId), origin);
    },

    /** A verified webhook: the upload it names moves as its state says; unknown videos are ignored. */
    async applyProviderNotification(notification: ProviderNotification): Promise<VideoOutcome> {
      const upload = await deps.db.repos.mediaUploads.findByProviderRef(notification.providerRef);
      if (!upload) return 'skipped';
      const submission = await deps.db.repos.submissions.findById(upload.submissionId);
      if (!submission) return 'skipped';
      return applyState(submission, notification.video);
    },

    /**
     * At `expires_at`: a session still waiting fails `upload_expired`, unless the provider has
     * the bytes after all (a late or lost notification), in which case processing goes on.
     */
    async expireUpload(submissionId: string, origin: JobOrigin = {}): Promise<VideoOutcome> {
      const submission = await deps.db.repos.submissions.findById(submissionId);
      const upload = await deps.db.repos.mediaUploads.findBySubmission(submissionId);
      if (!submission || !upload || submission.status !== 'waiting_for_upload') return 'skipped';
      if (upload.expiresAt.getTime() > now().getTime()) return 'waiting';
      if (deps.provider.name !== 'local' && upload.providerRef) {
        const video = await deps.provider.getVideo(upload.providerRef);
        if (video.state !== 'waiting_for_upload') {
          const outcome = await applyState(submission, video);
          if (outcome === 'processing') await pollAgain(submission, false, origin);
          return outcome;
        }
      }
      const result = await failExpiredUpload(deps.db, submissionId);
      return result.ok ? 'failed' : 'skipped';
    },
  };
}

export type VideoService = ReturnType<typeof createVideoService>;
