import { describe, expect, it } from 'vitest';
import { compileValidator } from '@framedesk/config';
import { SLUG_PATTERN, SUBMISSION_STATUSES, VISIBILITIES } from '@framedesk/domain';
import {
  API_SUBMISSION_STATUSES,
  API_VISIBILITIES,
  buildOpenApiDocument,
  frameMetadataSchema,
  SlugSchema,
} from './index';

describe('contracts', () => {
  it('mirror the domain values (kept browser-safe by not importing them)', () => {
    expect([...API_SUBMISSION_STATUSES]).toEqual([...SUBMISSION_STATUSES]);
    expect([...API_VISIBILITIES]).toEqual([...VISIBILITIES]);
    expect(SlugSchema.pattern).toBe(SLUG_PATTERN);
  });

  it('validate metadata with every violation listed', () => {
    const validate = compileValidator(frameMetadataSchema({ clickZonesMax: 1 }));
    const result = validate({ agent_slug: 'A', date: '2026-01-01', click_zones: [{}, {}], extra: 1 });
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.violations.map((v) => v.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/agent_slug', '/channel_slug', '/date', '/click_zones', '/click_zones/0/url', '/extra']),
    );
  });

  it('build a JSON-serializable OpenAPI 3.1 document', () => {
    const doc = buildOpenApiDocument({
      api: { base_url: 'http://x', metadata_max_bytes: 10 },
      media: {
        allowed_image_mime_types: ['image/png'],
        allowed_video_mime_types: [],
        multipart_max_bytes: 100,
        click_zones_max: 3,
      },
      delivery: { vendor_stream_upload_expires_seconds: 60 },
    });
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    expect(doc['openapi']).toBe('3.1.0');
  });
});
