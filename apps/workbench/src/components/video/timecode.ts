/**
 * The frame rate frame stepping assumes: the browser does not expose a video's, and the API does not
 * send it, so 25 fps (docs/video.md, "The player").
 */
export const DEFAULT_FPS = 25;

/** "00:03.12": minutes, seconds and the frame within the second (hours first past an hour). */
export function formatTimecode(time: number, fps = DEFAULT_FPS): string {
  const frames = Math.round(Math.max(0, time) * fps);
  const frame = frames % fps;
  const total = Math.floor(frames / fps);
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
