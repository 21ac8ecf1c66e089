import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeMeasuredClip } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeVideo } from './video';
import { measureVideo, parseMeasurement, videoSignals } from './video-measure';

describe('measureVideo (blackdetect, freezedetect, silencedetect in one ffmpeg pass)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-measure-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const measure = async (kind: 'black' | 'still' | 'silent' | 'pattern') => {
    const path = makeMeasuredClip(dir, `${kind}.mp4`, kind, 3);
    const probe = await probeVideo(path);
    return { probe, m: await measureVideo(path, probe) };
  };

  it('a black clip is black for at least 90 % of it, and has no audio', async () => {
    const { probe, m } = await measure('black');
    expect(probe.hasAudio).toBe(false);
    expect(m.black.share).toBeGreaterThanOrEqual(0.9);
    expect(m.black.stretches[0]!.start).toBe(0);
    expect(m.hasAudio).toBe(false);
    expect(m.silent).toBeNull();
    const signals = videoSignals(m);
    expect(signals).not.toHaveProperty('silent_share');
    expect(signals['has_audio']).toBe(false);
  });

  it('a looped still is frozen, not black', async () => {
    const { m } = await measure('still');
    expect(m.frozen.share).toBeGreaterThanOrEqual(0.9);
    expect(m.frozen.stretches).toHaveLength(1);
    expect(m.black.share).toBe(0);
  });

  it('a clip with a silent track is silent throughout', async () => {
    const { probe, m } = await measure('silent');
    expect(probe.hasAudio).toBe(true);
    expect(m.silent!.share).toBeGreaterThanOrEqual(0.9);
    expect(m.black.share).toBe(0);
    expect(m.frozen.share).toBe(0);
    expect(videoSignals(m)['silent_share']).toBe(m.silent!.share);
  });

  it('a moving pattern with a tone is neither black, frozen nor silent', async () => {
    const { m } = await measure('pattern');
    expect(m.black.share).toBe(0);
    expect(m.frozen.share).toBe(0);
    expect(m.silent!.share).toBe(0);
    expect(m.hasAudio).toBe(true);
  });
});

describe('parseMeasurement', () => {
  it('pairs starts and ends, closes an open stretch at the end and clamps to the duration', () => {
    const stderr = [
      '[blackdetect @ 0x1] black_start:0 black_end:1.5 black_duration:1.5',
      '[freezedetect @ 0x2] lavfi.freezedetect.freeze_start: 2',
      '[freezedetect @ 0x2] lavfi.freezedetect.freeze_duration: 1',
      '[freezedetect @ 0x2] lavfi.freezedetect.freeze_end: 3',
      '[freezedetect @ 0x2] lavfi.freezedetect.freeze_start: 8',
      '[silencedetect @ 0x3] silence_start: -0.002',
      '[silencedetect @ 0x3] silence_end: 10.4 | silence_duration: 10.4',
    ].join('\n');
    const m = parseMeasurement(stderr, 10, true);
    expect(m.black).toEqual({ stretches: [{ start: 0, end: 1.5 }], seconds: 1.5, share: 0.15 });
    expect(m.frozen.stretches).toEqual([
      { start: 2, end: 3 },
      { start: 8, end: 10 },
    ]);
    expect(m.frozen.seconds).toBe(3);
    expect(m.silent).toEqual({ stretches: [{ start: 0, end: 10 }], seconds: 10, share: 1 });
  });
});
