/**
 * The frame rate frame stepping assumes when the worker read none (a Cloudflare video, or one
 * ffprobe gave no rate for): 25 fps (docs/video.md, "The player").
 */
export const DEFAULT_FPS = 25;

/** The video's frames per second as the worker measured them, else DEFAULT_FPS. */
export const frameRateOf = (measurement: { frame_rate?: number } | null | undefined): number =>
  measurement?.frame_rate && measurement.frame_rate > 0 ? measurement.frame_rate : DEFAULT_FPS;

/**
 * "00:03.12": minutes, seconds and the frame within the second (hours first past an hour). A
 * fractional rate (29.97) numbers its frames by its whole rate (30), as non-drop-frame timecode does.
 */
export function formatTimecode(time: number, fps = DEFAULT_FPS): string {
  const nominal = Math.max(1, Math.round(fps));
  const frames = Math.round(Math.max(0, time) * fps);
  const frame = frames % nominal;
  const total = Math.floor(frames / nominal);
  const pad = (n: number) => String(n).padStart(2, '0');
  const hours = Math.floor(total / 3600);
  const clock = `${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}.${pad(frame)}`;
  return hours > 0 ? `${pad(hours)}:${clock}` : clock;
}

/** The time `frames` frames from `time`, snapped to a frame and kept inside the video. */
export function stepFrames(time: number, frames: number, duration: number, fps = DEFAULT_FPS): number {
  const next = (Math.round(time * fps) + frames) / fps;
  const last = Number.isFinite(duration) && duration > 0 ? duration : next;
  return Math.min(Math.max(0, next), last);
}

/** Seconds to 3 decimals, as the API keeps a moment's times. */
export const roundTime = (t: number) => Math.round(t * 1000) / 1000;
