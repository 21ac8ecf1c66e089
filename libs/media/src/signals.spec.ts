import type { VariantSpec } from '@framedesk/config';
import { describe, expect, it } from 'vitest';
import { loadSharp } from './sharp-loader';
import { processImage } from './image';
import { BLANK_SPREAD, signalsFromGrey } from './signals';

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
