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
  measureAndSprite,
  type MeasuredSignals,
  posterTime,
  probeVideo,
  type VideoProbe,
  videoSignals,
  type VideoSprite,
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

const reasonOf = (error: InvalidVideoError) => [error.message, error.detail].filter(Boolean).join(' ');

/**
 * Black, frozen and silent stretches and the scrubbing sprite with its WebVTT track, made in one
 * ffmpeg pass (docs/video.md). Either can fail alone: a video ffmpeg cannot measure still goes on
 * to review with no signals, and why is recorded in the status change's `data` (`measure_error`;
 * `sprite_error` for the sprite).
 */
async function measuredAndSprited(
  path: string,
  probe: VideoProbe,
  tools: VideoToolOptions | undefined,
): Promise<{ signals: MeasuredSignals | null; sprite: VideoSprite | null; data: Record<string, string> }> {
  const { measurement, sprite } = await measureAndSprite(path, probe, tools);
  return {
    signals: measurement.ok ? videoSignals(measurement.value, probe.frameRate) : null,
    sprite: sprite.ok ? sprite.value : null,
    data: {
      ...(measurement.ok ? {} : { measure_error: reasonOf(measurement.error) }),
      ...(sprite.ok ? {} : { sprite_error: reasonOf(sprite.error) }),
    },
  };
}

/**
 * The local driver: the original probed with ffprobe; a poster, then the measurement and the sprite
 * (one pass) made with ffmpeg; then finished.
 */
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
      const made = await measuredAndSprited(path, probe, deps.tools);
      const preview = await deps.storePoster(submission.id, poster, probe.width, probe.height);
      if (!preview) return 'skipped';
      if (made.sprite) await deps.storeSprite(submission.id, made.sprite);
      return finish(
        submission,
        {
          durationMs: Math.round(probe.durationSeconds * 1000),
          width: probe.width,
          height: probe.height,
          bytes: Number(original.byteSize),
          preview,
          signals: made.signals,
        },
        {
          codec: probe.codec,
          container: probe.formatName,
          ...made.data,
        },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
