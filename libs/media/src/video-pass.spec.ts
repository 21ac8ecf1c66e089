import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeMeasuredClip, type MeasuredClipKind } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidVideoError, probeVideo, VideoToolTimeoutError } from './video';
import { measureVideo } from './video-measure';
import { measureAndSprite, type PassResult } from './video-pass';
import { makeSprite } from './video-sprite';

const value = <T>(result: PassResult<T>): T => {
  if (!result.ok) throw result.error;
  return result.value;
};

describe('measureAndSprite: the measurement and the sprite in one ffmpeg run', () => {
  let dir: string;
  let n = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-pass-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** An ffmpeg that writes each of its runs' arguments, a line each, to a log, then runs (or fails) as told. */
  function countingFfmpeg(behaviour = 'exec ffmpeg "$@"'): { path: string; runs: () => string[] } {
    n += 1;
    const path = join(dir, `ffmpeg-${n}`);
    const log = join(dir, `ffmpeg-${n}.log`);
    writeFileSync(log, '');
    writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\n${behaviour}\n`);
    chmodSync(path, 0o755);
    return { path, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  }

  it.each<MeasuredClipKind>(['black', 'still', 'silent', 'pattern'])(
    'a %s clip: one ffmpeg process does both, with the same measurement and the same sprite as two runs',
    async (kind) => {
      const path = makeMeasuredClip(dir, `${kind}.mp4`, kind, 3);
      const probe = await probeVideo(path);
      const ffmpeg = countingFfmpeg();
      const pass = await measureAndSprite(path, probe, { ffmpegPath: ffmpeg.path });

      const runs = ffmpeg.runs();
      expect(runs).toHaveLength(1);
      for (const filter of ['split=2', 'blackdetect', 'freezedetect', 'tile=3x1']) expect(runs[0]).toContain(filter);
      expect(runs[0]!.includes('silencedetect')).toBe(probe.hasAudio);

      // What the two runs of before make, each decoding the file once.
      const measurement = await measureVideo(path, probe);
      const sprite = await makeSprite(path, probe);
      expect(value(pass.measurement)).toEqual(measurement);
      const made = value(pass.sprite);
      expect(made.webp.equals(sprite.webp)).toBe(true);
      expect({ ...made, webp: null }).toEqual({ ...sprite, webp: null });
    },
  );

  it('when the pass fails, each is made alone: an unmeasurable video keeps its sprite', async () => {
    const path = makeMeasuredClip(dir, 'pattern-m.mp4', 'pattern', 3);
    const probe = await probeVideo(path);
    // Fails every run with the detectors in it, as a stream the detectors choke on would.
    const ffmpeg = countingFfmpeg(
      'case "$*" in *blackdetect*) echo "corrupt stream" >&2; exit 1;; esac\nexec ffmpeg "$@"',
    );
    const pass = await measureAndSprite(path, probe, { ffmpegPath: ffmpeg.path });
    expect(pass.measurement).toMatchObject({ ok: false, error: { detail: 'corrupt stream' } });
    expect(value(pass.sprite)).toMatchObject({ frames: 3, columns: 3 });
    expect(ffmpeg.runs()).toHaveLength(3);
  });

  it('when the pass fails, each is made alone: a video whose sprite cannot be made is still measured', async () => {
    const path = makeMeasuredClip(dir, 'black-s.mp4', 'black', 3);
    const probe = await probeVideo(path);
    const ffmpeg = countingFfmpeg('case "$*" in *tile=*) echo "no encoder" >&2; exit 1;; esac\nexec ffmpeg "$@"');
    const pass = await measureAndSprite(path, probe, { ffmpegPath: ffmpeg.path });
    expect(value(pass.measurement).black.share).toBeGreaterThanOrEqual(0.9);
    expect(pass.sprite).toMatchObject({ ok: false, error: { detail: 'no encoder' } });
    expect(pass.sprite.ok || pass.sprite.error).toBeInstanceOf(InvalidVideoError);
  });

  it('a pass that runs out of time is not run again: both fail with the timeout, after one run', async () => {
    const path = makeMeasuredClip(dir, 'still-t.mp4', 'still', 3);
    const probe = await probeVideo(path);
    const ffmpeg = countingFfmpeg('exec sleep 60');
    const pass = await measureAndSprite(path, probe, { ffmpegPath: ffmpeg.path, timeoutMs: 300 });
    expect(pass.measurement.ok || pass.measurement.error).toBeInstanceOf(VideoToolTimeoutError);
    expect(pass.sprite.ok || pass.sprite.error).toBeInstanceOf(VideoToolTimeoutError);
    expect(ffmpeg.runs()).toHaveLength(1);
  });
});
