import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { hammingDistance, perceptualHash } from './fingerprint';
import { encodeClip, svgToPicture, svgToPng } from './scene';
import { probeVideo, VideoToolUnavailableError } from './video';

const scene = (x: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="90"><rect width="160" height="90" fill="#2a6f97"/>` +
  `<circle cx="${x}" cy="45" r="20" fill="#f4a261"/><rect y="60" width="160" height="30" fill="#1b4332"/></svg>`;

describe('scenes drawn as SVG', () => {
  it('rasterises the same SVG to the same PNG, and a re-sent copy to a near-duplicate of it', async () => {
    const png = await svgToPng(scene(50));
    expect((await svgToPng(scene(50))).equals(png)).toBe(true);
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 160, height: 90 });
    const copy = await svgToPng(scene(50), { crop: 0.02, scale: 0.5, brightness: 1.05, jpegQuality: 70 });
    expect(await sharp(copy).metadata()).toMatchObject({ format: 'png', width: 77, height: 43 });
    expect(hammingDistance(await perceptualHash(png), await perceptualHash(copy))).toBeLessThanOrEqual(6);
  });

  it('encodes frames into an H.264 MP4 ffprobe reads, the same bytes each time', async () => {
    const frames = await Promise.all([20, 60, 100, 140].map((x) => svgToPicture(scene(x))));
    const clip = await encodeClip(frames, { fps: 4 });
    expect((await encodeClip(frames, { fps: 4 })).equals(clip)).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'fd-scene-'));
    try {
      await writeFile(join(dir, 'clip.mp4'), clip);
      const probe = await probeVideo(join(dir, 'clip.mp4'));
      expect(probe).toMatchObject({ width: 160, height: 90, codec: 'h264', durationSeconds: 1 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says ffmpeg is missing when it cannot run it', async () => {
    const error = await encodeClip([await svgToPicture(scene(10))], { ffmpegPath: '/nowhere/ffmpeg' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VideoToolUnavailableError);
    expect((error as Error).message).toBe('ffmpeg not found at /nowhere/ffmpeg');
  });
});
