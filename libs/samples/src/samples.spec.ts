import { resolve } from 'node:path';
import { EXAMPLE_CONFIG_PATH, loadSettings, readProjectConfig } from '@framedesk/config';
import { hammingDistance, isImageProcessingError, perceptualHash, processImage } from '@framedesk/media';
import { requestValidators } from '@framedesk/submissions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RenderedSamples, renderSamples } from './render';
import { SAMPLE_CHANNELS, SAMPLE_SPECS } from './sample-set';
import { daysBefore, sampleIdempotencyKey } from './seed';

const root = resolve(import.meta.dirname, '../../..');

describe('the sample set', () => {
  let set: RenderedSamples;
  const byName = (name: string) => set.frames.find((f) => f.name === name)!;

  beforeAll(async () => {
    set = await renderSamples({ video: false });
  });

  it('is the same bytes on every run, and changes with the seed', async () => {
    const again = await renderSamples({ video: false });
    expect(again.frames.map((f) => f.name)).toEqual(set.frames.map((f) => f.name));
    for (const [i, frame] of set.frames.entries())
      expect(again.frames[i]!.bytes.equals(frame.bytes), frame.name).toBe(true);
    const harbour = SAMPLE_SPECS.filter((s) => s.name === 'harbour-sunrise');
    const reseeded = await renderSamples({ video: false, seed: 2, specs: harbour });
    expect(reseeded.frames[0]!.bytes.equals(byName('harbour-sunrise').bytes)).toBe(false);
  });

  it('has re-sends within the near-duplicate distance of their original, and no other pair of a channel', async () => {
    const { NEAR_DUPLICATE_MAX_DISTANCE: max } = loadSettings({});
    const images = set.frames.filter((f) => f.outcome !== 'failed');
    const hashes = new Map(
      await Promise.all(images.map(async (f) => [f.name, await perceptualHash(f.bytes)] as const)),
    );
    const group = (name: string) => byName(name).resendOf ?? name;
    const resends = images.filter((f) => f.resendOf);
    expect(resends.length).toBeGreaterThanOrEqual(2);
    for (const a of images)
      for (const b of images) {
        if (a.name >= b.name || a.channel !== b.channel) continue;
        const distance = hammingDistance(hashes.get(a.name)!, hashes.get(b.name)!);
        if (group(a.name) === group(b.name)) expect(distance, `${a.name} ~ ${b.name}`).toBeLessThanOrEqual(max);
        else expect(distance, `${a.name} vs ${b.name}`).toBeGreaterThan(max);
      }
  });

  it('sends metadata the agent API accepts, click zones included', () => {
    const validators = requestValidators(readProjectConfig(resolve(root, EXAMPLE_CONFIG_PATH)));
    const withZones = set.frames.filter((f) => f.clickZones.length > 0);
    expect(withZones.map((f) => f.name)).toEqual(['tram-line-4']);
    for (const frame of set.frames) {
      const metadata = {
        agent_slug: 'demo-agent',
        channel_slug: frame.channel,
        date: daysBefore('20260301', frame.daysAgo),
        title: frame.title,
        caption: frame.caption,
        external_ref: frame.externalRef,
        click_zones: [...frame.clickZones],
      };
      expect(() => validators.frameMetadata(metadata), frame.name).not.toThrow();
      expect(SAMPLE_CHANNELS.map((c) => c.slug)).toContain(frame.channel);
    }
  });

  it('has one upload that looks like a PNG and fails processing as invalid_image', async () => {
    const broken = set.frames.filter((f) => f.outcome === 'failed');
    expect(broken).toHaveLength(1);
    expect(broken[0]!.bytes.subarray(1, 4).toString()).toBe('PNG');
    const error = await processImage(broken[0]!.bytes, []).catch((e: unknown) => e);
    expect(isImageProcessingError(error) && error.code).toBe('invalid_image');
  });

  it('leaves the video out with a one-line note when ffmpeg is missing', async () => {
    const clips = SAMPLE_SPECS.filter((s) => s.picture.kind === 'clip');
    expect(clips.map((c) => c.name)).toEqual(['ferry-crossing', 'ferry-crossing-rerender']);
    const without = await renderSamples({ specs: clips.slice(0, 1), video: { ffmpegPath: '/nowhere/ffmpeg' } });
    expect(without).toEqual({ frames: [], notes: ['no video sample: ffmpeg not found at /nowhere/ffmpeg'] });
  });

  it('makes stable UUID Idempotency-Keys from names, and dates back across months', () => {
    expect(sampleIdempotencyKey('harbour-sunrise')).toBe(sampleIdempotencyKey('harbour-sunrise'));
    expect(sampleIdempotencyKey('harbour-sunrise')).not.toBe(sampleIdempotencyKey('mountain-pass'));
    expect(sampleIdempotencyKey('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(daysBefore('20260302', 3)).toBe('20260227');
    expect(daysBefore('20260101', 0)).toBe('20260101');
  });
});
