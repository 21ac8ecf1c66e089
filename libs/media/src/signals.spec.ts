import type { VariantSpec } from '@framedesk/config';
import { describe, expect, it } from 'vitest';
import { loadSharp } from './sharp-loader';
import { processImage } from './image';
import { BLANK_SPREAD, greyCopy, SIGNAL_SIDE, signalsFromGrey, signalsOfDecoded } from './signals';

const VARIANTS: VariantSpec[] = [{ name: 'thumb', kind: 'fit', width: 64, height: 64 }];

describe('signals', () => {
  it('a uniform picture is blank, with its luminance and no sharpness', () => {
    const grey = new Uint8Array(16 * 16).fill(200);
    expect(signalsFromGrey(grey, 16, 16)).toEqual({ blank: true, luminance: 200, luminance_spread: 0, sharpness: 0 });
  });

  it('a checkerboard is sharp and not blank; a smooth gradient is not blank but not sharp', () => {
    const board = Uint8Array.from({ length: 32 * 32 }, (_, i) => (((i % 32) + Math.floor(i / 32)) % 2 ? 255 : 0));
    const sharp = signalsFromGrey(board, 32, 32);
    expect(sharp.blank).toBe(false);
    expect(sharp.sharpness).toBeGreaterThan(10_000);
    const ramp = Uint8Array.from({ length: 32 * 32 }, (_, i) => (i % 32) * 8);
    const smooth = signalsFromGrey(ramp, 32, 32);
    expect(smooth.luminance_spread).toBeGreaterThan(BLANK_SPREAD);
    expect(smooth.sharpness).toBeLessThan(1);
  });

  it('processImage measures them from the pixels it decoded', async () => {
    const sharp = await loadSharp();
    const white = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#f0f0f0' } })
      .png()
      .toBuffer();
    const blank = await processImage(white, VARIANTS);
    expect(blank.signals).toMatchObject({ blank: true, luminance: 240 });
    const noisy = await sharp(Buffer.from(Uint8Array.from({ length: 320 * 200 * 3 }, (_, i) => (i * 7919) % 251)), {
      raw: { width: 320, height: 200, channels: 3 },
    })
      .png()
      .toBuffer();
    const busy = await processImage(noisy, VARIANTS);
    expect(busy.signals.blank).toBe(false);
    expect(busy.signals.sharpness).toBeGreaterThan(100);
  });
});

describe('greyCopy', () => {
  it('samples the decoded pixels down to SIGNAL_SIDE, flattening alpha on white, with the luma of each colour', () => {
    const width = 1280;
    const height = 720;
    // Left half pure red, right half transparent: red's luma (77/256 of 255) and white.
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width / 2; x++) data.set([255, 0, 0, 255], (y * width + x) * 4);
    const copy = greyCopy({ data, width, height, channels: 4 });
    expect({ width: copy.width, height: copy.height }).toEqual({ width: SIGNAL_SIDE, height: 144 });
    expect(copy.grey[0]).toBe(76);
    expect(copy.grey[SIGNAL_SIDE - 1]).toBe(255);
    expect(signalsOfDecoded({ data, width, height, channels: 4 }).luminance).toBeCloseTo((76 + 255) / 2, 0);
  });

  it('keeps a picture smaller than SIGNAL_SIDE at its size', () => {
    const grey = Uint8Array.from({ length: 10 * 6 }, (_, i) => i);
    const copy = greyCopy({ data: grey, width: 10, height: 6, channels: 1 });
    expect(copy).toEqual({ grey, width: 10, height: 6 });
  });
});
