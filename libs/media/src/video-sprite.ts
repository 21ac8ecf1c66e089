import { InvalidVideoError, runVideoTool, type VideoToolOptions } from './video';

/**
 * The thumbnail sprite's limits (docs/video.md, "Scrubbing"): one frame a second, at most
 * `maxFrames` (a longer video's frames are spread evenly over it), `columns` a row, each tile
 * fitting `tileSide`×`tileSide`. So a sprite is at most 1600×1600 px, whatever the video's length.
 */
export const SPRITE_LIMITS = { maxFrames: 100, columns: 10, tileSide: 160, secondsPerFrame: 1 } as const;

/** How the video's frames are laid out in the sprite. */
export interface SpriteLayout {
  readonly frames: number;
  readonly columns: number;
  readonly rows: number;
  readonly tileWidth: number;
  readonly tileHeight: number;
  /** Seconds of video each tile stands for. */
  readonly interval: number;
}

export interface VideoSprite extends SpriteLayout {
  /** One WebP image of every tile, row by row. */
  readonly webp: Buffer;
  /** The WebVTT track: each cue's text is `sprite.webp#xywh=x,y,w,h`. */
  readonly vtt: string;
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** N by duration (one a second, capped), tiles by the picture's aspect ratio. */
export function spriteLayout(durationSeconds: number, width: number, height: number): SpriteLayout {
  const { maxFrames, columns: maxColumns, tileSide, secondsPerFrame } = SPRITE_LIMITS;
  const frames = Math.max(1, Math.min(maxFrames, Math.ceil(durationSeconds / secondsPerFrame)));
  const columns = Math.min(maxColumns, frames);
  const landscape = width >= height;
  const tileWidth = landscape ? tileSide : even((tileSide * width) / height);
  const tileHeight = landscape ? even((tileSide * height) / width) : tileSide;
  return {
    frames,
    columns,
    rows: Math.ceil(frames / columns),
    tileWidth,
    tileHeight,
    interval: durationSeconds / frames,
  };
}

/** `HH:MM:SS.mmm`, as WebVTT writes a time. */
export function vttTime(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}

/** The WebVTT track mapping each tile's time range to its region of `spriteName`. */
export function spriteVtt(layout: SpriteLayout, durationSeconds: number, spriteName = 'sprite.webp'): string {
  const cues = ['WEBVTT', ''];
  for (let i = 0; i < layout.frames; i++) {
    const start = i * layout.interval;
    const end = i === layout.frames - 1 ? durationSeconds : (i + 1) * layout.interval;
    const x = (i % layout.columns) * layout.tileWidth;
    const y = Math.floor(i / layout.columns) * layout.tileHeight;
    cues.push(
      `${vttTime(start)} --> ${vttTime(end)}`,
      `${spriteName}#xywh=${x},${y},${layout.tileWidth},${layout.tileHeight}`,
      '',
    );
  }
  return cues.join('\n');
}

/** The filter chain that lays the tiles out: `fps` picks a frame each interval, `scale` and `tile`. */
export function spriteFilter(layout: SpriteLayout): string {
  return [
    `fps=fps=1/${layout.interval.toFixed(6)}:round=down`,
    `scale=${layout.tileWidth}:${layout.tileHeight}`,
    `tile=${layout.columns}x${layout.rows}`,
  ].join(',');
}

/** How the one tiled picture is encoded and where it goes: libwebp, to ffmpeg's stdout. */
export const SPRITE_OUTPUT = ['-frames:v', '1', '-c:v', 'libwebp', '-quality', '70', '-f', 'webp', 'pipe:1'] as const;

/** The sprite from what ffmpeg wrote to stdout, with its WebVTT track; throws when that is no WebP. */
export function spriteFromOutput(stdout: Buffer, layout: SpriteLayout, durationSeconds: number): VideoSprite {
  if (stdout.length < 12 || stdout.toString('latin1', 8, 12) !== 'WEBP')
    throw new InvalidVideoError('No frame could be decoded from the video.', 'ffmpeg wrote no WebP sprite');
  return { ...layout, webp: stdout, vtt: spriteVtt(layout, durationSeconds) };
}

/**
 * The sprite in an ffmpeg run of its own (`spriteFilter`, libwebp encodes the one picture), and
 * its WebVTT track. The worker makes it in the measuring pass instead (`measureAndSprite`); this
 * is that pass's fallback when it fails, so a failure of one leaves the other's result.
 */
export async function makeSprite(
  path: string,
  probe: { readonly durationSeconds: number; readonly width: number; readonly height: number },
  options: VideoToolOptions = {},
): Promise<VideoSprite> {
  const layout = spriteLayout(probe.durationSeconds, probe.width, probe.height);
  const { stdout } = await runVideoTool(
    'ffmpeg',
    options.ffmpegPath ?? 'ffmpeg',
    ['-v', 'error', '-nostdin', '-i', path, '-an', '-sn', '-dn', '-vf', spriteFilter(layout), ...SPRITE_OUTPUT],
    options.timeoutMs ?? 120_000,
  );
  return spriteFromOutput(stdout, layout, probe.durationSeconds);
}
