import { parseVariantName, type VariantSpec } from '@framedesk/config';
import { describe, expect, it } from 'vitest';
import { variantSize } from './geometry';

const spec = (name: string): VariantSpec => {
  const parsed = parseVariantName(name);
  if (!parsed) throw new Error(`bad variant ${name}`);
  return parsed;
};

describe('variantSize', () => {
  it('public keeps the original size', () => {
    expect(variantSize(spec('public'), { width: 4000, height: 3000 })).toEqual({ width: 4000, height: 3000 });
  });

  it('thumbnail and preview fit inside their box and keep the aspect ratio', () => {
    expect(variantSize(spec('thumbnail'), { width: 4000, height: 3000 })).toEqual({ width: 256, height: 192 });
    expect(variantSize(spec('thumbnail'), { width: 1000, height: 2000 })).toEqual({ width: 128, height: 256 });
    expect(variantSize(spec('preview'), { width: 3000, height: 3000 })).toEqual({ width: 1024, height: 1024 });
  });

  it('never enlarges a small image for fit, width or height rules', () => {
    const small = { width: 100, height: 50 };
    expect(variantSize(spec('preview'), small)).toEqual(small);
    expect(variantSize(spec('w640'), small)).toEqual(small);
    expect(variantSize(spec('h480'), small)).toEqual(small);
  });

  it('wNNN and hNNN scale to that width or height', () => {
    expect(variantSize(spec('w640'), { width: 1280, height: 720 })).toEqual({ width: 640, height: 360 });
    expect(variantSize(spec('h480'), { width: 1280, height: 960 })).toEqual({ width: 640, height: 480 });
  });

  it('WxH is always exactly W×H (cover crop)', () => {
    expect(variantSize(spec('640x360'), { width: 100, height: 100 })).toEqual({ width: 640, height: 360 });
    expect(variantSize(spec('640x360'), { width: 4000, height: 1000 })).toEqual({ width: 640, height: 360 });
  });

  it('never produces a zero side for extreme aspect ratios', () => {
    expect(variantSize(spec('thumbnail'), { width: 10_000, height: 1 })).toEqual({ width: 256, height: 1 });
  });
});
