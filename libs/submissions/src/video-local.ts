import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ProjectConfig } from '@framedesk/config';
import type { Database, SubmissionWithSlugs } from '@framedesk/db';
import {
  extractPoster,
  InvalidVideoError,
  makeSprite,
  type MeasuredSignals,
  measureVideo,
  posterTime,
  probeVideo,
  type VideoProbe,
  videoSignals,
  type VideoToolOptions,
} from '@framedesk/media';
import type { ObjectStorage } from '@framedesk/storage';
import type { StorePoster } from './video-poster';
import type { StoreSprite } from './video-sprite';
import type { VideoOutcome, VideoTransitions } from './video-transitions';

export interface LocalVideoDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly config: Pick<ProjectConfig, 'media'>;
  readonly tools?: VideoToolOptions;
  readonly transitions: VideoTransitions;
  readonly storePoster: StorePoster;
  readonly storeSprite: StoreSprite;
}

/**
 * Black, frozen and silent stretches (docs/video.md). A video ffmpeg cannot measure still goes on
 * to review: no signals, and why is recorded in the status change's `data` (`measure_error`).
 */
async function measured(
  path: string,
  probe: VideoProbe,
  tools: VideoToolOptions | undefined,
): Promise<{ signals: MeasuredSignals } | { error: string }> {
  try {
    return { signals: videoSignals(await measureVideo(path, probe, tools)) };
  } catch (error) {
    if (error instanceof InvalidVideoError) return { error: reasonOf(error) };
    throw error;
  }
}

const reasonOf = (error: InvalidVideoError) => [error.message, error.detail].filter(Boolean).join(' ');

/** The scrubbing sprite and its WebVTT track, stored; a reason when ffmpeg could not make it (review goes on). */
async function sprited(
  deps: LocalVideoDeps,
  submissionId: string,
  path: string,
  probe: VideoProbe,
): Promise<{ sprite_error: string } | Record<string, never>> {
  try {
    await deps.storeSprite(submissionId, await makeSprite(path, probe, deps.tools));
    return {};
  } catch (error) {
    if (error instanceof InvalidVideoError) return { sprite_error: reasonOf(error) };
    throw error;
  }
}

/** The local driver: the original probed with ffprobe; measured, a poster and a sprite made with ffmpeg; then finished. */
export function localVideoProcessor(deps: LocalVideoDeps) {
  const { fail, finish } = deps.transitions;
  return async function processLocal(submission: SubmissionWithSlugs): Promise<VideoOutcome> {
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
      const measurement = await measured(path, probe, deps.tools);
      const preview = await deps.storePoster(submission.id, poster, probe.width, probe.height);
      if (!preview) return 'skipped';
      const sprite = await sprited(deps, submission.id, path, probe);
      return finish(
        submission,
        {
          durationMs: Math.round(probe.durationSeconds * 1000),
          width: probe.width,
          height: probe.height,
          bytes: Number(original.byteSize),
          preview,
          signals: 'signals' in measurement ? measurement.signals : null,
        },
        {
          codec: probe.codec,
          container: probe.formatName,
          ...('error' in measurement ? { measure_error: measurement.error } : {}),
          ...sprite,
        },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
