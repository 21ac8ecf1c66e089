import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A real RGB PNG, built without sharp so fixtures never depend on the code under test. Declared
 * dimensions may exceed the pixel data (`declared`) to make lying or bomb-like files.
 */
export function makePng(
  width: number,
  height: number,
  options: { declared?: { width: number; height: number }; seed?: number } = {},
): Buffer {
  const w = options.declared?.width ?? width;
  const h = options.declared?.height ?? height;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const seed = options.seed ?? 1;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      row[1 + x * 3] = (x * 7 + seed) & 0xff;
      row[2 + x * 3] = (y * 5 + seed * 3) & 0xff;
      row[3 + x * 3] = ((x ^ y) + seed * 11) & 0xff;
    }
    rows.push(row);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A decompression bomb: a valid PNG declaring `side`×`side` pixels whose IDAT is a small
 * zlib stream of zero rows (a 20000×20000 RGB image compresses to well under a megabyte).
 */
export function makePngBomb(side = 20_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8;
  header[9] = 2;
  const row = Buffer.alloc(1 + side * 3);
  const rows = Buffer.alloc(row.length * 256);
  const idat = deflateSync(rows, { level: 9 }); // a prefix of the image is enough to declare the size
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** A valid RGB PNG of random pixels: it does not compress, so its size is about width×height×3. */
export function makeNoisePng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const rows = randomBytes(height * (1 + width * 3));
  for (let y = 0; y < height; y++) rows[y * (1 + width * 3)] = 0; // filter byte: none
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** How makeClip draws: ffmpeg's `testsrc` (plain) or `testsrc2` (busier, compresses worse), rate, bitrate. */
export interface ClipOptions {
  readonly pattern?: 'testsrc' | 'testsrc2';
  /** Frames per second: a number, or a ratio as ffmpeg writes it ("30000/1001"). */
  readonly rate?: number | string;
  /** ffmpeg's `-b:v`, e.g. '2M' for a clip well over a small-video limit. */
  readonly bitrate?: string;
}

/** A short real H.264 clip (ffmpeg's test pattern, 10 fps unless told) written to `dir/name`; returns its path. */
export function makeClip(
  dir: string,
  name: string,
  seconds: number,
  size = '320x240',
  options: ClipOptions = {},
): string {
  const path = join(dir, name);
  const { pattern = 'testsrc', rate = 10, bitrate } = options;
  const source = ['-f', 'lavfi', '-i', `${pattern}=duration=${seconds}:size=${size}:rate=${rate}`];
  const quality = bitrate ? ['-b:v', bitrate] : [];
  execFileSync('ffmpeg', ['-y', '-loglevel', 'error', ...source, '-pix_fmt', 'yuv420p', ...quality, path]);
  return path;
}
