import { POLICY_VARIABLES } from './cel-environment';

/** One measured stretch of a video, in seconds from its start. */
export interface SignalStretch {
  readonly start: number;
  readonly end: number;
}

/**
 * What the worker measured over a whole video (libs/media `measureVideo`, docs/video.md): absent
 * for a video it did not measure (a provider keeping the bytes, or ffmpeg could not read it), and
 * `silent_*` absent for a video without audio. `stretches` is for the workbench's timeline, not
 * for rules.
 */
export interface VideoSignals {
  readonly black_seconds?: number;
  readonly black_share?: number;
  readonly frozen_seconds?: number;
  readonly frozen_share?: number;
  readonly silent_seconds?: number;
  readonly silent_share?: number;
  readonly has_audio?: boolean;
  /** Frames per second (ffprobe's average), absent when unknown. */
  readonly frame_rate?: number;
  readonly stretches?: {
    readonly black?: readonly SignalStretch[];
    readonly frozen?: readonly SignalStretch[];
    readonly silent?: readonly SignalStretch[];
  };
}

const KINDS: Record<string, string> = POLICY_VARIABLES.signals;

/**
 * `signals` as CEL reads them: only the declared variables, each of its declared type (ints as
 * BigInt); a key absent, or of another type, is left out so a condition reading it fails.
 */
export function celSignals(signals: object): Record<string, unknown> {
  const values = signals as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(KINDS)) {
    const value = values[name];
    if (kind === 'bool' && typeof value === 'boolean') out[name] = value;
    else if (kind === 'double' && typeof value === 'number' && Number.isFinite(value)) out[name] = value;
    else if (kind === 'int' && typeof value === 'number' && Number.isFinite(value))
      out[name] = BigInt(Math.round(value));
  }
  return out;
}
