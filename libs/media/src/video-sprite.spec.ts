import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeMeasuredClip } from '@framedesk/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeVideo } from './video';
import { makeSprite, SPRITE_LIMITS, spriteLayout, vttTime } from './video-sprite';

describe('thumbnail sprite and WebVTT track', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-sprite-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('one tile a second of a real clip, in one WebP, and a cue per tile naming its region', async () => {
    const path = makeMeasuredClip(dir, 'pattern.mp4', 'pattern', 3);
    const probe = await probeVideo(path);
    const sprite = await makeSprite(path, probe);
    expect(sprite).toMatchObject({ frames: 3, columns: 3, rows: 1, tileWidth: 160, tileHeight: 120 });
    const meta = await sharp(sprite.webp).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 480, 120]);
    expect(sprite.vtt.split('\n')).toEqual([
      'WEBVTT',
      '',
      '00:00:00.000 --> 00:00:01.000',
      'sprite.webp#xywh=0,0,160,120',
      '',
      '00:00:01.000 --> 00:00:02.000',
      'sprite.webp#xywh=160,0,160,120',
      '',
      '00:00:02.000 --> 00:00:03.000',
      'sprite.webp#xywh=320,0,160,120',
      '',
    ]);
  });

  it('a long video stays within the documented size: at most 100 tiles of 160 px, 1600×1600', () => {
    const hour = spriteLayout(3600, 1920, 1080);
    expect(hour).toMatchObject({
      frames: SPRITE_LIMITS.maxFrames,
      columns: 10,
      rows: 10,
      tileWidth: 160,
      tileHeight: 90,
    });
    expect(hour.interval).toBe(36);
    const tall = spriteLayout(3600, 1080, 1920);
    expect(tall.columns * tall.tileWidth).toBeLessThanOrEqual(1600);
    expect(tall.rows * tall.tileHeight).toBeLessThanOrEqual(1600);
    expect(spriteLayout(0.4, 320, 240).frames).toBe(1);
    expect(vttTime(3725.5)).toBe('01:02:05.500');
  });
});
