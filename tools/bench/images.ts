import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(Buffer.from(type, 'ascii'))));
  return Buffer.concat([head, data, crc]);
}

/** xorshift32: deterministic, fast, and good enough to defeat deflate. */
function random(seed: number): () => number {
  let state = seed * 2654435761 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

export interface PngOptions {
  readonly seed?: number;
  /** Random low bits per channel: 0 gives a gradient that compresses to nothing, 8 is pure noise. */
  readonly noiseBits?: number;
  /** zlib level; 0 stores the pixels as they are (fast, for the huge uploads). */
  readonly level?: number;
}

/**
 * An RGB PNG that looks like a photo to deflate: a smooth gradient with noise in the low bits,
 * so a 1280×720 frame is about 1 MB instead of the few KB a synthetic pattern compresses to.
 */
export function noisyPng(width: number, height: number, options: PngOptions = {}): Buffer {
  const next = random(options.seed ?? 1);
  const bits = options.noiseBits ?? 3;
  const mask = (1 << bits) - 1;
  const top = 255 - mask;
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      const r = next();
      const o = row + 1 + x * 3;
      raw[o] = (((x * 255) / width) & top) | (r & mask);
      raw[o + 1] = (((y * 255) / height) & top) | ((r >>> 8) & mask);
      raw[o + 2] = ((((x + y) * 127) / (width + height)) & top) | ((r >>> 16) & mask);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: options.level ?? 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Where a text chunk can go: right after the signature and IHDR. */
const IHDR_END = SIGNATURE.length + 8 + 13 + 4;

/**
 * The parts of a PNG made unique by a text chunk after IHDR, without copying the pixels: the
 * same decoding work, but different bytes (so different SHA-256s and storage objects).
 */
export function uniquePngParts(png: Buffer, tag: string): Buffer[] {
  return [png.subarray(0, IHDR_END), chunk('tEXt', Buffer.from(`bench\0${tag}`, 'latin1')), png.subarray(IHDR_END)];
}

export function uniquePng(png: Buffer, tag: string): Buffer {
  return Buffer.concat(uniquePngParts(png, tag));
}
