import { settingsSchema } from '@framedesk/config';
import { describe, expect, it } from 'vitest';
import { hammingDistance, hashFromGrey, perceptualHash } from './fingerprint';
import { applyEdit, buildQualitySet, encodePicture, generatePicture, measureQuality } from './fingerprint-quality';

const defaultThreshold = settingsSchema.properties.NEAR_DUPLICATE_MAX_DISTANCE.default;

describe('fingerprint', () => {
  it('sets a bit where a pixel is brighter than its right neighbour', () => {
    const grey = new Uint8Array(72);
    // First row falls from left to right: the eight most significant bits are set.
    for (let x = 0; x < 9; x++) grey[x] = 200 - x * 10;
    const hash = hashFromGrey(grey);
    expect(BigInt.asUintN(64, hash)).toBe(0xffn << 56n);
    expect(hash < 0n).toBe(true); // stored as PostgreSQL's signed bigint
  });

  it('counts differing bits', () => {
    expect(hammingDistance(0n, -1n)).toBe(64);
    expect(hammingDistance(0b1011n, 0b0001n)).toBe(2);
  });

  it('keeps a picture and its edit close, and two different pictures far apart', async () => {
    const picture = generatePicture(7);
    const original = await perceptualHash(await encodePicture(picture));
    const edited = await perceptualHash(await applyEdit(picture, 'resize 75% + brightness +5%'));
    const other = await perceptualHash(await encodePicture(generatePicture(8)));
    expect(hammingDistance(original, edited)).toBeLessThanOrEqual(defaultThreshold);
    expect(hammingDistance(original, other)).toBeGreaterThan(defaultThreshold);
  });

  it(`finds ≥ 95% of edited copies with ≤ 1% false positives at the default threshold (${defaultThreshold})`, async () => {
    const set = await buildQualitySet(100);
    const [row] = measureQuality(set, [defaultThreshold]);
    expect(row!.recall).toBeGreaterThanOrEqual(0.95);
    expect(row!.falsePositiveRate).toBeLessThanOrEqual(0.01);
  }, 60_000);
});
