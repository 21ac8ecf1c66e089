import { execFile } from 'node:child_process';
import { withSpan } from '@framedesk/observability';
import { loadSharp } from './sharp-loader';

/** ffprobe/ffmpeg executables and how long each run may take (a hostile file must not hang a worker). */
export interface VideoToolOptions {
  readonly ffprobePath?: string;
  readonly ffmpegPath?: string;
  readonly timeoutMs?: number;
}

export interface VideoProbe {
  readonly durationSeconds: number;
  readonly width: number;
  readonly height: number;
  readonly codec: string;
  readonly formatName: string;
  /** Whether the file has an audio stream (`silencedetect` is run only then). */
  readonly hasAudio: boolean;
  /**
   * Frames per second of the video stream (its average, e.g. 29.97 for 30000/1001), or null when
   * ffprobe gives none that makes sense: the workbench steps by this frame.
   */
  readonly frameRate: number | null;
}

/** A frame rate as ffprobe writes it ("30000/1001", "25/1"; "0/0" when unknown), or null. */
export function parseFrameRate(value: unknown): number | null {
  const match = /^(\d+)\/(\d+)$/.exec(String(value ?? ''));
  if (!match) return null;
  const rate = Number(match[1]) / Number(match[2]);
  // Past 1,000 fps is no camera's or renderer's: a broken header, not a rate to step by.
  return Number.isFinite(rate) && rate > 0 && rate <= 1000 ? Math.round(rate * 1000) / 1000 : null;
}

/**
 * The file is not a video we can read: a permanent failure (`invalid_video`), never retried.
 * `message` is a stable sentence safe to show an agent; `detail` (the tool's stderr, which may
 * name temporary paths) is for the worker's log only.
 */
export class InvalidVideoError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'InvalidVideoError';
  }
}

/**
 * The tool ran past its time and was killed: a file too hard for it, or a machine too busy. Still
 * an `InvalidVideoError` (permanent, never retried), told apart so that a caller does not run the
 * same work again on the same file, and a readiness check can say the tool did not finish.
 */
export class VideoToolTimeoutError extends InvalidVideoError {
  constructor(
    readonly tool: VideoTool,
    readonly timeoutMs: number,
    detail?: string,
  ) {
    super(`${tool} gave up on the file after ${timeoutMs} ms.`, detail);
    this.name = 'VideoToolTimeoutError';
  }
}

export type VideoTool = 'ffprobe' | 'ffmpeg';

/** ffprobe/ffmpeg cannot be run on this machine: the server's fault, retried until it is fixed. */
export class VideoToolUnavailableError extends Error {
  constructor(
    readonly tool: VideoTool,
    readonly path: string,
    problem = 'not found at',
  ) {
    super(`${tool} ${problem} ${path}`);
    this.name = 'VideoToolUnavailableError';
  }
}

const MAX_OUTPUT = 16 * 1024 * 1024;

/** Runs ffprobe or ffmpeg, in a span of its own (arguments left out: they name temporary files). */
function run(tool: VideoTool, file: string, args: string[], timeoutMs: number): Promise<Buffer> {
  return runVideoTool(tool, file, args, timeoutMs).then((out) => out.stdout);
}

/** As `run`, with the tool's stderr too (where ffmpeg's detection filters report). */
export function runVideoTool(
  tool: VideoTool,
  file: string,
  args: string[],
  timeoutMs: number,
): Promise<{ stdout: Buffer; stderr: Buffer }> {
  return withSpan(tool, { 'process.executable.name': tool }, () => runTool(tool, file, args, timeoutMs));
}

function runTool(
  tool: VideoTool,
  file: string,
  args: string[],
  timeoutMs: number,
): Promise<{ stdout: Buffer; stderr: Buffer }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: MAX_OUTPUT, encoding: 'buffer', windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) return resolve({ stdout, stderr });
        const e = error as NodeJS.ErrnoException & { killed?: boolean };
        // A missing executable is an operator problem (retried once fixed), not a bad video.
        if (e.code === 'ENOENT') return reject(new VideoToolUnavailableError(tool, file));
        if (e.code === 'EACCES') return reject(new VideoToolUnavailableError(tool, file, 'is not executable at'));
        const detail = stderr.toString('utf8').trim().split('\n').slice(-2).join(' ') || e.message;
        if (e.killed) return reject(new VideoToolTimeoutError(tool, timeoutMs, detail));
        reject(
          new InvalidVideoError(
            tool === 'ffmpeg' ? 'No frame could be decoded from the video.' : 'The upload is not a readable video.',
            detail,
          ),
        );
      },
    );
  });
}

/** `<tool> -version`'s first line (for example `ffprobe version 5.1.6-0+deb12u1`); throws when it cannot run. */
export async function videoToolVersion(tool: VideoTool, path: string = tool, timeoutMs = 5_000): Promise<string> {
  const out = await run(tool, path, ['-version'], timeoutMs).catch((error: unknown) => {
    // On a machine too busy to start it in time, not a broken install: say so.
    if (error instanceof VideoToolTimeoutError)
      throw new VideoToolUnavailableError(tool, path, `-version did not finish within ${timeoutMs} ms at`);
    if (error instanceof InvalidVideoError)
      throw new VideoToolUnavailableError(tool, path, `-version failed (${error.detail ?? error.message}) at`);
    throw error;
  });
  const first = out
    .toString('utf8')
    .split('\n')[0]
    ?.replace(/\s+Copyright.*$/, '')
    .trim();
  return first || `${tool} (version unknown)`;
}

/** Duration, dimensions and frame rate of the first video stream, via `ffprobe -print_format json`. */
export async function probeVideo(path: string, options: VideoToolOptions = {}): Promise<VideoProbe> {
  const out = await run(
    'ffprobe',
    options.ffprobePath ?? 'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', path],
    options.timeoutMs ?? 30_000,
  );
  let parsed: { streams?: Record<string, unknown>[]; format?: Record<string, unknown> };
  try {
    parsed = JSON.parse(out.toString('utf8'));
  } catch {
    throw new InvalidVideoError('The upload is not a readable video.', 'ffprobe printed no JSON');
  }
  const video = parsed.streams?.find(
    (s) =>
      s['codec_type'] === 'video' && (s['disposition'] as { attached_pic?: number } | undefined)?.attached_pic !== 1,
  );
  if (!video) throw new InvalidVideoError('The file has no video stream.');
  const width = Number(video['width']);
  const height = Number(video['height']);
  const duration = Number(parsed.format?.['duration'] ?? video['duration']);
  if (!(width > 0 && height > 0)) throw new InvalidVideoError('The video stream has no dimensions.');
  if (!Number.isFinite(duration) || duration <= 0) throw new InvalidVideoError('The video has no duration.');
  return {
    durationSeconds: duration,
    width,
    height,
    codec: String(video['codec_name'] ?? 'unknown'),
    formatName: String(parsed.format?.['format_name'] ?? 'unknown'),
    hasAudio: parsed.streams?.some((s) => s['codec_type'] === 'audio') ?? false,
    frameRate: parseFrameRate(video['avg_frame_rate']) ?? parseFrameRate(video['r_frame_rate']),
  };
}

/** One JPEG frame at `atSeconds` (ffmpeg writes it to stdout; no temp file). */
export async function extractPoster(
  path: string,
  options: VideoToolOptions & { atSeconds?: number } = {},
): Promise<Buffer> {
  const at = Math.max(0, options.atSeconds ?? 0);
  const jpeg = await run(
    'ffmpeg',
    options.ffmpegPath ?? 'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      '-ss',
      at.toFixed(3),
      '-i',
      path,
      '-frames:v',
      '1',
      '-f',
      'image2',
      '-c:v',
      'mjpeg',
      '-q:v',
      '3',
      'pipe:1',
    ],
    options.timeoutMs ?? 60_000,
  );
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8)
    throw new InvalidVideoError('No frame could be decoded from the video.', 'ffmpeg wrote no JPEG');
  return jpeg;
}

/** A small WebP of a poster frame, fitting `maxSide`×`maxSide`, metadata stripped. */
export async function posterPreview(
  jpeg: Buffer,
  maxSide = 640,
): Promise<{ data: Buffer; width: number; height: number }> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(jpeg, { limitInputPixels: 100_000_000 })
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Where in a clip the poster frame is taken: a second in, or the middle of a shorter clip. */
export function posterTime(durationSeconds: number): number {
  return Math.min(1, durationSeconds / 2);
}

export interface SniffedVideo {
  readonly mimeType: string;
  readonly extension: string;
}

/**
 * The container a file really is, from its first bytes: ISO BMFF (`ftyp` at offset 4; brand
 * `qt  ` is QuickTime) or EBML (WebM/Matroska). Null for anything else: never trust a name.
 */
export function sniffVideoContainer(head: Buffer): SniffedVideo | null {
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') {
    return head.toString('latin1', 8, 12) === 'qt  '
      ? { mimeType: 'video/quicktime', extension: 'mov' }
      : { mimeType: 'video/mp4', extension: 'mp4' };
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
    // The EBML header names its DocType near the start; WebM says so, Matroska otherwise.
    return head.includes('matroska', 0, 'latin1')
      ? { mimeType: 'video/x-matroska', extension: 'mkv' }
      : { mimeType: 'video/webm', extension: 'webm' };
  }
  return null;
}

/** Bytes `sniffVideoContainer` needs to decide. */
export const VIDEO_SNIFF_BYTES = 64;
