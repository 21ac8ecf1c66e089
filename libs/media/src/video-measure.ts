import { runVideoTool, type VideoToolOptions } from './video';

/** One measured stretch of a video, in seconds from its start. */
export interface Stretch {
  readonly start: number;
  readonly end: number;
}

/** What one kind of detection found: its stretches, their total and their share of the duration. */
export interface StretchSummary {
  readonly stretches: readonly Stretch[];
  readonly seconds: number;
  /** `seconds` over the video's duration, 0–1. */
  readonly share: number;
}

/** What `measureVideo` found (docs/video.md, "Measured stretches"). */
export interface VideoMeasurement {
  readonly black: StretchSummary;
  readonly frozen: StretchSummary;
  /** Null when the video has no audio stream (nothing to be silent). */
  readonly silent: StretchSummary | null;
  readonly hasAudio: boolean;
}

/**
 * The detection filters' thresholds (ffmpeg's names). A picture is black when 98 % of its pixels
 * are darker than 10 % (`pix_th`) and lasts 0.1 s; frozen when frames differ by less than -60 dB for
 * 0.5 s; silent below -50 dB for 0.5 s.
 */
export const MEASURE_FILTERS = {
  black: 'blackdetect=d=0.1:pix_th=0.10:pic_th=0.98',
  frozen: 'freezedetect=n=-60dB:d=0.5',
  silent: 'silencedetect=n=-50dB:d=0.5',
} as const;

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Closes open stretches at the end, clamps each to [0, duration], merges nothing (filters do not overlap). */
function summarise(stretches: Stretch[], durationSeconds: number): StretchSummary {
  const clamped = stretches
    .map((s) => ({ start: round(Math.max(0, s.start)), end: round(Math.min(durationSeconds, s.end)) }))
    .filter((s) => s.end > s.start);
  const seconds = round(clamped.reduce((sum, s) => sum + (s.end - s.start), 0));
  const share = durationSeconds > 0 ? Math.min(1, round(seconds / durationSeconds)) : 0;
  return { stretches: clamped, seconds, share };
}

/** Pairs `start` and `end` values in the order ffmpeg printed them; a start with no end lasts to the end. */
function pairs(starts: number[], ends: number[], durationSeconds: number): Stretch[] {
  return starts.map((start, i) => ({ start, end: ends[i] ?? durationSeconds }));
}

const numbers = (stderr: string, pattern: RegExp): number[] =>
  [...stderr.matchAll(pattern)].map((m) => Number(m[1])).filter((n) => Number.isFinite(n));

/** Reads the three filters' lines of ffmpeg's stderr (exported for its unit test). */
export function parseMeasurement(stderr: string, durationSeconds: number, hasAudio: boolean): VideoMeasurement {
  const black = [...stderr.matchAll(/black_start:\s*([\d.]+)\s+black_end:\s*([\d.]+)/g)].map((m) => ({
    start: Number(m[1]),
    end: Number(m[2]),
  }));
  const frozen = pairs(
    numbers(stderr, /lavfi\.freezedetect\.freeze_start:\s*([\d.]+)/g),
    numbers(stderr, /lavfi\.freezedetect\.freeze_end:\s*([\d.]+)/g),
    durationSeconds,
  );
  const silent = pairs(
    numbers(stderr, /silence_start:\s*(-?[\d.]+)/g),
    numbers(stderr, /silence_end:\s*([\d.]+)/g),
    durationSeconds,
  );
  return {
    black: summarise(black, durationSeconds),
    frozen: summarise(frozen, durationSeconds),
    silent: hasAudio ? summarise(silent, durationSeconds) : null,
    hasAudio,
  };
}

/** The video detectors' chain: `blackdetect` then `freezedetect` (each passes frames on unchanged). */
export const MEASURE_VIDEO_CHAIN = `${MEASURE_FILTERS.black},${MEASURE_FILTERS.frozen}`;

/**
 * Black, frozen and (with audio) silent stretches, in an ffmpeg run of its own decoding the file
 * once (`-f null`: nothing is encoded). The worker measures in the sprite's pass instead
 * (`measureAndSprite`); this is that pass's fallback when it fails. Throws `InvalidVideoError`
 * when ffmpeg cannot read the file, and `VideoToolUnavailableError` when it cannot run.
 */
export async function measureVideo(
  path: string,
  probe: { readonly durationSeconds: number; readonly hasAudio: boolean },
  options: VideoToolOptions = {},
): Promise<VideoMeasurement> {
  const audio = probe.hasAudio ? ['-af', MEASURE_FILTERS.silent] : ['-an'];
  const { stderr } = await runVideoTool(
    'ffmpeg',
    options.ffmpegPath ?? 'ffmpeg',
    [
      ...['-hide_banner', '-nostats', '-nostdin', '-v', 'info', '-i', path],
      ...['-vf', MEASURE_VIDEO_CHAIN, ...audio, '-sn', '-dn', '-f', 'null', '-'],
    ],
    options.timeoutMs ?? 120_000,
  );
  return parseMeasurement(stderr.toString('utf8'), probe.durationSeconds, probe.hasAudio);
}

/** The measurement as recorded on the submission (`signals`, the same keys libs/policies reads). */
export interface MeasuredSignals {
  readonly black_seconds: number;
  readonly black_share: number;
  readonly frozen_seconds: number;
  readonly frozen_share: number;
  readonly has_audio: boolean;
  readonly silent_seconds?: number;
  readonly silent_share?: number;
  /** Frames per second as ffprobe read them (absent when it gave none): the workbench steps by it. */
  readonly frame_rate?: number;
  readonly stretches: {
    readonly black: readonly Stretch[];
    readonly frozen: readonly Stretch[];
    readonly silent?: readonly Stretch[];
  };
}

/**
 * The measurement as the submission's `signals` (docs/policies.md): the scalar values a rule
 * reads, and the stretches the workbench draws on the timeline. `silent_*` only with audio;
 * `frame_rate` (ffprobe's) only when known.
 */
export function videoSignals(m: VideoMeasurement, frameRate: number | null = null): MeasuredSignals {
  return {
    black_seconds: m.black.seconds,
    black_share: m.black.share,
    frozen_seconds: m.frozen.seconds,
    frozen_share: m.frozen.share,
    has_audio: m.hasAudio,
    ...(m.silent ? { silent_seconds: m.silent.seconds, silent_share: m.silent.share } : {}),
    ...(frameRate ? { frame_rate: frameRate } : {}),
    stretches: {
      black: m.black.stretches,
      frozen: m.frozen.stretches,
      ...(m.silent ? { silent: m.silent.stretches } : {}),
    },
  };
}
