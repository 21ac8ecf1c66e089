import type { ProjectConfig } from '@framedesk/config';
import type { Database, SubmissionWithSlugs } from '@framedesk/db';
import type { ObjectStorage } from '@framedesk/storage';
import type { ProviderVideoState } from '@framedesk/video-provider';
import { recordMediaOrDiscard } from './media-guard';
import type { PosterPreview, StorePoster } from './video-poster';
import { failureCodeOf, type VideoOutcome, type VideoTransitions } from './video-transitions';

const MAX_POSTER_BYTES = 10 * 1024 * 1024;

export interface ProviderStateDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly config: Pick<ProjectConfig, 'media'>;
  /** Fetches a provider's thumbnail. */
  readonly fetch: typeof fetch;
  readonly transitions: VideoTransitions;
  readonly storePoster: StorePoster;
}

type ReadyVideo = Extract<ProviderVideoState, { state: 'ready' }>;

/** A hosted provider's view of a video (polled or notified) applied through the status machine. */
export function providerStateHandler(deps: ProviderStateDeps) {
  const { fail, finish, toProcessing } = deps.transitions;

  /**
   * What the provider delivers for a ready video: its thumbnail fetched into storage as the
   * poster (a reviewer's browser and an agent then read it from us), and its playback URL kept
   * as an `external` media object (`variants.playback`). A thumbnail that cannot be fetched
   * leaves the video without a poster; the player still works. False: erased or purged meanwhile;
   * else the poster's preview, if any.
   */
  async function storeProviderMedia(
    submissionId: string,
    video: ReadyVideo,
  ): Promise<false | { preview: PosterPreview | null }> {
    let preview: PosterPreview | null = null;
    if (video.thumbnailUrl) {
      try {
        const response = await deps.fetch(video.thumbnailUrl, { signal: AbortSignal.timeout(15_000) });
        const bytes = response.ok ? Buffer.from(await response.arrayBuffer()) : null;
        if (bytes && bytes.length > 0 && bytes.length <= MAX_POSTER_BYTES) {
          preview = await deps.storePoster(
            submissionId,
            bytes,
            video.width ?? null,
            video.height ?? null,
            /^image\/(jpeg|png|webp)$/.exec(response.headers.get('content-type') ?? '')?.[0] ?? 'image/jpeg',
          );
          if (!preview) return false;
        }
      } catch {
        // unreachable or not an image: no poster
      }
    }
    const playbackUrl = video.playbackUrl;
    if (!playbackUrl) return { preview };
    const recorded = await recordMediaOrDiscard(deps, submissionId, [], async (repos) => {
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
    return recorded && { preview };
  }

  async function ready(submission: SubmissionWithSlugs, video: ReadyVideo): Promise<VideoOutcome> {
    if (!(await toProcessing(submission, 'provider received the upload'))) return 'skipped';
    const maxSeconds = deps.config.media.video_max_duration_seconds;
    if (maxSeconds !== undefined && video.durationSeconds !== undefined && video.durationSeconds > maxSeconds) {
      return fail(
        submission.id,
        'duration_exceeded',
        `The video lasts ${video.durationSeconds.toFixed(1)} s; at most ${maxSeconds} s are allowed.`,
      );
    }
    const stored = await storeProviderMedia(submission.id, video);
    if (!stored) return 'skipped';
    // The provider's size when it says, else the size the agent announced for the upload.
    const bytes =
      video.byteSize ?? Number((await deps.db.repos.mediaUploads.findBySubmission(submission.id))?.byteSize ?? 0);
    return finish(
      submission,
      {
        durationMs: video.durationSeconds !== undefined ? Math.round(video.durationSeconds * 1000) : null,
        width: video.width ?? null,
        height: video.height ?? null,
        bytes,
        preview: stored.preview,
      },
      { thumbnail_url: video.thumbnailUrl ?? null, playback_url: video.playbackUrl ?? null },
    );
  }

  /** Applies a provider's view of a video; the same view twice changes nothing the second time. */
  return async function applyState(submission: SubmissionWithSlugs, video: ProviderVideoState): Promise<VideoOutcome> {
    switch (video.state) {
      case 'waiting_for_upload':
        return submission.status === 'waiting_for_upload' ? 'waiting' : 'processing';
      case 'media_processing':
        await toProcessing(submission, 'provider received the upload');
        return 'processing';
      case 'ready':
        return ready(submission, video);
      case 'failed':
        return fail(submission.id, failureCodeOf(video.failureCode), video.failureMessage);
    }
  };
}
