import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Picture } from './fingerprint-quality';
import { loadSharp } from './sharp-loader';
import { VideoToolUnavailableError } from './video';

/**
 * Pictures drawn as SVG and rasterised here (sharp's librsvg), and short clips encoded from them
 * with ffmpeg: the sample frames a first `npm start` shows (libs/samples) and test fixtures.
 * Same SVG, same bytes: librsvg, libvips' PNG encoder and x264 on one thread are deterministic.
 */

/** How a re-sent copy differs from the first picture: the edits agents make when they send again. */
export interface ResendEdit {
  /** Cut this fraction off every side (0.03 = 3 %). */
  readonly crop?: number;
  /** Resize to this fraction of the size. */
  readonly scale?: number;
  /** Brightness factor, 1 = unchanged. */
  readonly brightness?: number;
  /** Pass through JPEG at this quality first (its artefacts stay), then PNG. */
  readonly jpegQuality?: number;
}

/** The SVG's pixels as raw RGB (alpha flattened on white). */
export async function svgToPicture(svg: string): Promise<Picture> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(Buffer.from(svg))
    .flatten({ background: '#ffffff' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The SVG as a PNG, with `edit` applied (a re-sent copy of the same picture). */
export async function svgToPng(svg: string, edit: ResendEdit = {}): Promise<Buffer> {
  const sharp = await loadSharp();
  const { data, width, height } = await svgToPicture(svg);
  let image = sharp(data, { raw: { width, height, channels: 3 } });
  let size = { width, height };
  if (edit.crop) {
    const dx = Math.round(width * edit.crop);
    const dy = Math.round(height * edit.crop);
    size = { width: width - 2 * dx, height: height - 2 * dy };
    image = image.extract({ left: dx, top: dy, ...size });
  }
  if (edit.scale) image = image.resize(Math.round(size.width * edit.scale), Math.round(size.height * edit.scale));
  if (edit.brightness) image = image.modulate({ brightness: edit.brightness });
  if (edit.jpegQuality) image = sharp(await image.jpeg({ quality: edit.jpegQuality }).toBuffer());
  return image.png().toBuffer();
}

export interface ClipOptions {
  /** Frames per second (default 10). */
  readonly fps?: number;
  readonly ffmpegPath?: string;
  readonly timeoutMs?: number;
}

/**
 * An H.264 MP4 of `frames` (raw RGB pictures of one size, even sides), encoded by ffmpeg on one
 * thread with bit-exact flags and no metadata, so the same frames give the same bytes. Throws
 * VideoToolUnavailableError when ffmpeg cannot be run.
 */
export async function encodeClip(frames: readonly Picture[], options: ClipOptions = {}): Promise<Buffer> {
  const first = frames[0];
  if (!first) throw new Error('a clip needs at least one frame');
  const ffmpeg = options.ffmpegPath ?? 'ffmpeg';
  const dir = await mkdtemp(join(tmpdir(), 'framedesk-clip-'));
  const out = join(dir, 'clip.mp4');
  const args = [
    ...['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24'],
    ...['-s', `${first.width}x${first.height}`, '-r', String(options.fps ?? 10), '-i', 'pipe:0'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '26', '-pix_fmt', 'yuv420p', '-threads', '1'],
    ...['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-movflags', '+faststart', out],
  ];
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(ffmpeg, args, { stdio: ['pipe', 'ignore', 'pipe'], timeout: options.timeoutMs ?? 60_000 });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', (error: NodeJS.ErrnoException) =>
        reject(error.code === 'ENOENT' ? new VideoToolUnavailableError('ffmpeg', ffmpeg) : error),
      );
      // ffmpeg may quit before reading everything (a bad option): its exit code says why.
      child.stdin.on('error', () => undefined);
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}: ${stderr.trim().split('\n').at(-1)}`)),
      );
      for (const frame of frames) child.stdin.write(frame.data);
      child.stdin.end();
    });
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
