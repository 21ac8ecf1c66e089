import { stepFrames } from './timecode';

/** What J/K/L and ,/. do to a video (docs/workbench.md, "Video player"). */
export interface PlayerControls {
  readonly time: () => number;
  readonly duration: () => number;
  readonly seek: (time: number) => void;
  readonly play: (rate: number) => void;
  readonly pause: () => void;
  readonly playing: () => boolean;
  readonly rate: () => number;
}

/** J jumps back this far (browsers cannot play backwards). */
export const JUMP_BACK_SECONDS = 1;
const MAX_RATE = 4;

/** The player's keys (`fps`: the video's frame rate, for ,/.); a key not listed is not the player's. */
export const PLAYER_KEYS: Record<string, (c: PlayerControls, fps: number) => void> = {
  j: (c) => {
    c.pause();
    c.seek(Math.max(0, c.time() - JUMP_BACK_SECONDS));
  },
  k: (c) => c.pause(),
  // L plays; pressed again while playing, it doubles the speed (up to 4×).
  l: (c) => c.play(c.playing() ? Math.min(MAX_RATE, c.rate() * 2) : 1),
  ',': (c, fps) => {
    c.pause();
    c.seek(stepFrames(c.time(), -1, c.duration(), fps));
  },
  arrowleft: (c) => c.seek(Math.max(0, c.time() - JUMP_BACK_SECONDS)),
  arrowright: (c) => c.seek(Math.min(c.duration() || Infinity, c.time() + JUMP_BACK_SECONDS)),
  '.': (c, fps) => {
    c.pause();
    c.seek(stepFrames(c.time(), 1, c.duration(), fps));
  },
};

const NOT_TYPING = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range']);

/** Whether a key on `target` is text being typed: the player's keys leave it alone. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true;
  return target.tagName === 'INPUT' && !NOT_TYPING.has((target as HTMLInputElement).type);
}
