import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Clips whose measurement is known (docs/video.md, "Measured stretches"), made with ffmpeg's lavfi
 * sources: `black` (color=black, no audio), `still` (one test-pattern picture repeated, no audio),
 * `silent` (the moving pattern with a silent track, anullsrc), `pattern` (the moving testsrc2
 * pattern with a 440 Hz tone).
 */
export type MeasuredClipKind = 'black' | 'still' | 'silent' | 'pattern';

const SOURCES: Record<MeasuredClipKind, (seconds: number, size: string) => string[]> = {
  black: (s, size) => ['-f', 'lavfi', '-i', `color=c=black:size=${size}:rate=10:duration=${s}`],
  still: (s, size) => [
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${size}:rate=10:duration=0.1,loop=loop=-1:size=1,trim=duration=${s}`,
  ],
  silent: (s, size) => [
    ...['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=10:duration=${s}`],
    ...['-f', 'lavfi', '-i', `anullsrc=r=22050:cl=mono`],
  ],
  pattern: (s, size) => [
    ...['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=10:duration=${s}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=22050:duration=${s}`],
  ],
};

/** A short H.264 (+ AAC) MP4 of one kind, written to `dir/name`; returns its path. */
export function makeMeasuredClip(
  dir: string,
  name: string,
  kind: MeasuredClipKind,
  seconds = 3,
  size = '160x120',
): string {
  const path = join(dir, name);
  const audio = kind === 'silent' || kind === 'pattern' ? ['-c:a', 'aac', '-t', String(seconds)] : [];
  execFileSync('ffmpeg', [
    ...['-y', '-loglevel', 'error', ...SOURCES[kind](seconds, size)],
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', ...audio, path],
  ]);
  return path;
}
