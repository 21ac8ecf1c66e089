import type { ProjectConfig } from '@framedesk/config';
import type { Database, MediaUploadRow, SimilaritySettings, SubmissionWithSlugs } from '@framedesk/db';
import type { VideoToolOptions } from '@framedesk/media';
import { annotateSpan } from '@framedesk/observability';
import { policyCache, type PolicyCache, type PolicyObserver, type ScoringClient } from '@framedesk/policies';
import type { JobOrigin, QueueProducer } from '@framedesk/queues';
import type { ObjectStorage } from '@framedesk/storage';
import type { ProviderNotification, VideoProvider } from '@framedesk/video-provider';
import { failExpiredUpload } from './upload-expiry';
import { localVideoProcessor } from './video-local';
import { videoPolicyRouter } from './video-policy';
import { videoPosterStore } from './video-poster';
import { providerStateHandler } from './video-provider-state';
import { videoSpriteStore } from './video-sprite';
import { type VideoOutcome, videoTransitions } from './video-transitions';

export { VIDEO_PREVIEW_VARIANT } from './video-poster';
export { VIDEO_SPRITE_TRACK_VARIANT, VIDEO_SPRITE_VARIANT } from './video-sprite';
export type { VideoOutcome } from './video-transitions';

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
  /** Review policies (docs/policies.md): the worker's cache (read every 5 s by default), the scoring hook, its metrics. */
  readonly policies?: { cache?: PolicyCache; scoring?: ScoringClient; observer?: PolicyObserver };
}

/**
 * After the bytes: the local driver probes the original with ffprobe and makes a poster
 * (video-local.ts); the cloudflare driver asks Stream (polling with back-off, or a verified
 * notification; video-provider-state.ts). Every change goes through the status machine
 * (video-transitions.ts), so repeated jobs and replayed notifications are no-ops.
 */
export function createVideoService(deps: VideoServiceDeps) {
  const now = deps.now ?? (() => new Date());
  const route = videoPolicyRouter({
    db: deps.db,
    policies: { ...deps.policies, cache: deps.policies?.cache ?? policyCache(deps.db) },
    now,
  });
  const transitions = videoTransitions({ db: deps.db, config: deps.config, now, route });
  const storePoster = videoPosterStore({
    db: deps.db,
    storage: deps.storage,
    bucket: deps.config.storage.vendor_originals_bucket,
    ...(deps.nearDuplicates ? { nearDuplicates: deps.nearDuplicates } : {}),
  });
  const shared = { db: deps.db, storage: deps.storage, config: deps.config, transitions, storePoster };
  const storeSprite = videoSpriteStore({
    db: deps.db,
    storage: deps.storage,
    bucket: deps.config.storage.vendor_originals_bucket,
  });
  const processLocal = localVideoProcessor({ ...shared, storeSprite, ...(deps.tools ? { tools: deps.tools } : {}) });
  const applyState = providerStateHandler({ ...shared, fetch: deps.fetch ?? fetch });

  /**
   * Next poll, backing off with the submission's age: every 5–60 s while the provider works on
   * the video, every 15 s – 5 min while nothing has been uploaded (webhooks usually win).
   */
  async function pollAgain(submission: SubmissionWithSlugs, waiting: boolean, origin: JobOrigin): Promise<void> {
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
    submission: SubmissionWithSlugs,
    upload: MediaUploadRow | null,
    origin: JobOrigin,
  ): Promise<VideoOutcome> {
    if (submission.status !== 'waiting_for_upload' && submission.status !== 'media_processing') return 'skipped';
    if (!upload?.providerRef)
      return transitions.fail(submission.id, 'provider_error', 'The upload session has no provider video id.');
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
