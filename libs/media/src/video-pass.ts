import { InvalidVideoError, runVideoTool, type VideoToolOptions, VideoToolTimeoutError } from './video';
import {
  MEASURE_FILTERS,
  MEASURE_VIDEO_CHAIN,
  measureVideo,
  parseMeasurement,
  type VideoMeasurement,
} from './video-measure';
import {
  makeSprite,
  SPRITE_OUTPUT,
  spriteFilter,
  spriteFromOutput,
  spriteLayout,
  type SpriteLayout,
  type VideoSprite,
} from './video-sprite';

/** What one of the pass's two products came to: the value, or why ffmpeg could not make it. */
export type PassResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: InvalidVideoError };

/** The measurement and the sprite of one video; each can fail on its own (docs/video.md). */
export interface MeasuredAndSprited {
  readonly measurement: PassResult<VideoMeasurement>;
  readonly sprite: PassResult<VideoSprite>;
}

/** The facts of ffprobe's the pass needs. */
export interface PassProbe {
  readonly durationSeconds: number;
  readonly width: number;
  readonly height: number;
  readonly hasAudio: boolean;
}

/**
 * Default time for the single pass and its fallback together: the two runs it replaces had 120 s
 * each. `options.timeoutMs`, when given, is that budget instead.
 */
export const SINGLE_PASS_TIMEOUT_MS = 240_000;

/** The least a fallback run is given, even when the failed pass used up nearly all of the budget. */
const FALLBACK_MIN_MS = 1_000;

/**
 * ffmpeg's arguments for the single pass. The file's video (the first stream that is not a cover
 * picture: the one ffprobe measured) is decoded once and `split` to the detectors and to the
 * sprite's tiles; its audio (the first stream), when there is one, goes to `silencedetect`.
 * Output 0 is the WebP sprite on stdout; output 1 is the detectors' frames to `-f null` (nothing
 * encoded). The detectors report on stderr, read as before by `parseMeasurement`.
 */
export function singlePassArgs(path: string, layout: SpriteLayout, hasAudio: boolean): string[] {
  const graph = [
    '[0:V:0]split=2[detect][tiles]',
    `[detect]${MEASURE_VIDEO_CHAIN}[detected]`,
    `[tiles]${spriteFilter(layout)}[sprite]`,
    ...(hasAudio ? [`[0:a:0]${MEASURE_FILTERS.silent}[heard]`] : []),
  ].join(';');
  return [
    ...['-hide_banner', '-nostats', '-nostdin', '-v', 'info', '-i', path, '-filter_complex', graph],
    ...['-map', '[sprite]', ...SPRITE_OUTPUT],
    ...['-map', '[detected]', ...(hasAudio ? ['-map', '[heard]'] : []), '-f', 'null', '-'],
  ];
}

async function settle<T>(work: () => T | Promise<T>): Promise<PassResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof InvalidVideoError) return { ok: false, error };
    throw error;
  }
}

/**
 * Black, frozen and silent stretches and the scrubbing sprite in **one ffmpeg run**, decoding the
 * file once (issue 45: as few passes as measurement allows). When that run fails, each is made in
 * a run of its own, so that a file whose audio cannot be decoded still gets its sprite and one
 * whose sprite cannot be encoded is still measured, as when they were always made apart; but
 * not after a timeout (the same file would only time out again). The pass and its fallback share
 * one time budget (`SINGLE_PASS_TIMEOUT_MS` by default), so a hostile file holds a worker no
 * longer than the two runs of before did. `VideoToolUnavailableError` is thrown (ffmpeg cannot
 * run at all: retried by the worker once fixed).
 */
export async function measureAndSprite(
  path: string,
  probe: PassProbe,
  options: VideoToolOptions = {},
): Promise<MeasuredAndSprited> {
  const layout = spriteLayout(probe.durationSeconds, probe.width, probe.height);
  const budget = options.timeoutMs ?? SINGLE_PASS_TIMEOUT_MS;
  const started = performance.now();
  const left = () => ({
    ...options,
    timeoutMs: Math.max(FALLBACK_MIN_MS, Math.round(budget - (performance.now() - started))),
  });
  let out: { stdout: Buffer; stderr: Buffer };
  try {
    out = await runVideoTool(
      'ffmpeg',
      options.ffmpegPath ?? 'ffmpeg',
      singlePassArgs(path, layout, probe.hasAudio),
      budget,
    );
  } catch (error) {
    if (error instanceof VideoToolTimeoutError)
      return { measurement: { ok: false, error }, sprite: { ok: false, error } };
    if (!(error instanceof InvalidVideoError)) throw error;
    const measurement = await settle(() => measureVideo(path, probe, left()));
    const sprite = await settle(() => makeSprite(path, probe, left()));
    return { measurement, sprite };
  }
  const measurement = parseMeasurement(out.stderr.toString('utf8'), probe.durationSeconds, probe.hasAudio);
  const sprite = await settle(() => spriteFromOutput(out.stdout, layout, probe.durationSeconds));
  return { measurement: { ok: true, value: measurement }, sprite };
}
