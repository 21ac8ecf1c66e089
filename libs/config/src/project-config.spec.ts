import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectConfigSchema } from './project-config.schema';
import { validateProjectConfig } from './project-config';
import { parseVariantName } from './variants';

const example = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../config/project.example.json'), 'utf8'));
const clone = () => structuredClone(example);

describe('project configuration schema', () => {
  it('is exactly the table of the interface document §2.4', () => {
    const json = JSON.parse(JSON.stringify(projectConfigSchema));
    expect(json.additionalProperties).toBe(false);
    expect(json.required.sort()).toEqual(['api', 'approval_defaults', 'delivery', 'media', 'storage']);
    for (const group of ['api', 'media', 'storage', 'delivery', 'approval_defaults']) {
      expect(json.properties[group].additionalProperties).toBe(false);
    }
    const p = (g: string, f: string) => json.properties[g].properties[f];
    expect(p('api', 'base_url')).toMatchObject({ type: 'string', format: 'uri' });
    expect(p('api', 'metadata_max_bytes')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(p('media', 'allowed_image_mime_types')).toMatchObject({
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
    });
    expect(p('media', 'allowed_video_mime_types').minItems).toBeUndefined();
    expect(json.properties.media.required.sort()).toEqual(
      ['allowed_image_mime_types', 'allowed_video_mime_types', 'click_zones_max', 'multipart_max_bytes'].sort(),
    );
    expect(p('delivery', 'vendor_stream_upload_expires_seconds')).toMatchObject({ type: 'integer', minimum: 60 });
    expect(p('approval_defaults', 'initial_visibility').enum).toEqual(['draft', 'team_visible', 'promotion_eligible']);
    expect(p('approval_defaults', 'requires_review')).toMatchObject({ type: 'boolean' });
  });

  it('accepts the committed example', () => {
    expect(validateProjectConfig(example)).toMatchObject({ ok: true });
  });

  it('reports every violation with its JSON path, not only the first', () => {
    const config = clone();
    config.api.metadata_max_bytes = 0;
    delete config.storage;
    config.media.surprise = true;
    config.approval_defaults.initial_visibility = 'public';
    config.api.base_url = 'not a uri';
    config.extra = 1;
    const result = validateProjectConfig(config);
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.violations.map((v) => v.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/metadata_max_bytes',
        '/storage',
        '/media/surprise',
        '/approval_defaults/initial_visibility',
        '/api/base_url',
        '/extra',
      ]),
    );
  });

  it('rejects variant names that are neither a preset nor a size rule', () => {
    const config = clone();
    config.delivery.vendor_image_variants = ['thumbnail', 'w640', 'huge', '0x10', 'thumbnail'];
    const result = validateProjectConfig(config);
    expect(result.ok ? [] : result.violations.map((v) => v.path)).toEqual([
      '/delivery/vendor_image_variants/2',
      '/delivery/vendor_image_variants/3',
      '/delivery/vendor_image_variants/4',
    ]);
  });

  it('requires at least one image type and one variant, allows no video type', () => {
    const config = clone();
    config.media.allowed_image_mime_types = [];
    config.media.allowed_video_mime_types = [];
    config.delivery.vendor_image_variants = [];
    config.delivery.vendor_stream_upload_expires_seconds = 59;
    const result = validateProjectConfig(config);
    expect(result.ok ? [] : result.violations.map((v) => v.path).sort()).toEqual([
      '/delivery/vendor_image_variants',
      '/delivery/vendor_stream_upload_expires_seconds',
      '/media/allowed_image_mime_types',
    ]);
  });
});

describe('variant names', () => {
  it('parses presets and size rules', () => {
    expect(parseVariantName('thumbnail')).toMatchObject({ kind: 'fit', width: 256, height: 256 });
    expect(parseVariantName('public')).toMatchObject({ kind: 'original' });
    expect(parseVariantName('w640')).toMatchObject({ kind: 'width', width: 640 });
    expect(parseVariantName('h480')).toMatchObject({ kind: 'height', height: 480 });
    expect(parseVariantName('640x360')).toMatchObject({ kind: 'cover', width: 640, height: 360 });
    for (const bad of ['w0', 'w012', 'x', '640x', 'w99999', 'Thumbnail', '']) expect(parseVariantName(bad)).toBeNull();
  });
});
