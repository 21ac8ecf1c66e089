import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeClip } from '@framedesk/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extractPoster,
  InvalidVideoError,
  posterPreview,
  posterTime,
  parseFrameRate,
  probeVideo,
  sniffVideoContainer,
  VideoToolUnavailableError,
  videoToolVersion,
} from './video';

describe('video tools (ffprobe/ffmpeg)', () => {
  let dir: string;
  let clip: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-video-'));
    clip = makeClip(dir, 'clip.mp4', 2);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('probes duration and dimensions of a real MP4', async () => {
    const probe = await probeVideo(clip);
    expect(probe.width).toBe(320);
    expect(probe.height).toBe(240);
    expect(probe.durationSeconds).toBeCloseTo(2, 1);
    expect(probe.codec).toBe('h264');
    expect(probe.frameRate).toBe(10); // makeClip's rate
  });

  it('reads the frame rate ffprobe gives (an NTSC 30000/1001 kept to 3 decimals), and none from nonsense', async () => {
    const ntsc = makeClip(dir, 'ntsc.mp4', 1, '160x120', { rate: '30000/1001' });
    expect((await probeVideo(ntsc)).frameRate).toBe(29.97);
    expect(parseFrameRate('25/1')).toBe(25);
    for (const nonsense of ['0/0', '1/0', '90000000/1', 'abc', undefined]) expect(parseFrameRate(nonsense)).toBeNull();
  });

  it('refuses a text file renamed to .mp4 as an invalid video', async () => {
    const fake = join(dir, 'fake.mp4');
    writeFileSync(fake, 'this is not a video\n'.repeat(100));
    const error = await probeVideo(fake).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidVideoError);
    // The agent-facing sentence is stable; ffprobe's stderr (which names the path) stays in `detail`.
    expect((error as InvalidVideoError).message).toBe('The upload is not a readable video.');
    expect((error as InvalidVideoError).message).not.toContain(dir);
    expect((error as InvalidVideoError).detail).toContain('fake.mp4');
  });

  it('refuses a PNG (an image, no duration)', async () => {
    const png = join(dir, 'still.png');
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } })
      .png()
      .toFile(png);
    await expect(probeVideo(png)).rejects.toBeInstanceOf(InvalidVideoError);
  });

  it('extracts a JPEG poster frame and a small WebP preview of it', async () => {
    const jpeg = await extractPoster(clip, { atSeconds: posterTime(2) });
    const meta = await sharp(jpeg).metadata();
    expect(meta.format).toBe('jpeg');
    expect([meta.width, meta.height]).toEqual([320, 240]);
    const preview = await posterPreview(jpeg, 160);
    expect((await sharp(preview.data).metadata()).format).toBe('webp');
    expect([preview.width, preview.height]).toEqual([160, 120]);
  });

  it('reports a missing executable as an operator error, not a bad video', async () => {
    const error = await probeVideo(clip, { ffprobePath: join(dir, 'no-such-ffprobe') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoToolUnavailableError);
    expect((error as Error).message).toBe(`ffprobe not found at ${join(dir, 'no-such-ffprobe')}`);
  });

  it('reads the versions of the installed tools, and names a missing one', async () => {
    expect(await videoToolVersion('ffprobe')).toMatch(/^ffprobe version /);
    expect(await videoToolVersion('ffmpeg')).toMatch(/^ffmpeg version /);
    await expect(videoToolVersion('ffmpeg', join(dir, 'nope'))).rejects.toThrow(
      `ffmpeg not found at ${join(dir, 'nope')}`,
    );
  });
});

describe('sniffVideoContainer', () => {
  const ftyp = (brand: string) =>
    Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from(`ftyp${brand}`, 'latin1'), Buffer.alloc(20)]);
  const ebml = (docType: string) =>
    Buffer.concat([
      Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84]),
      Buffer.from(docType, 'latin1'),
      Buffer.alloc(20),
    ]);

  it('names the container by its bytes, not its name', () => {
    expect(sniffVideoContainer(ftyp('isom'))).toEqual({ mimeType: 'video/mp4', extension: 'mp4' });
    expect(sniffVideoContainer(ftyp('qt  '))).toEqual({ mimeType: 'video/quicktime', extension: 'mov' });
    expect(sniffVideoContainer(ebml('webm'))).toEqual({ mimeType: 'video/webm', extension: 'webm' });
    expect(sniffVideoContainer(ebml('matroska'))).toEqual({ mimeType: 'video/x-matroska', extension: 'mkv' });
  });

  it('refuses anything else, including too few bytes', () => {
    expect(sniffVideoContainer(Buffer.from('hello, I am a text file named clip.mp4'))).toBeNull();
    expect(sniffVideoContainer(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]))).toBeNull();
    expect(sniffVideoContainer(ftyp('isom').subarray(0, 8))).toBeNull();
    expect(sniffVideoContainer(Buffer.alloc(0))).toBeNull();
  });
});
