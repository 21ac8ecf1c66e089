import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { requestExamples } from '@framedesk/contracts';
import { launchChromium } from '@framedesk/testing';
import { REDOC_BUNDLE } from '../src/routes/openapi.routes';
import { contractChecker, startTestApi, type TestApi } from './harness';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let api: TestApi;
let document: Json;

beforeAll(async () => {
  api = await startTestApi({ config: (c) => void (c.media.click_zones_max = 7) });
  const res = await api.call('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
});
afterAll(async () => {
  await api?.stop();
});

/** Every `$ref` in the document, with where it was found. */
function refs(value: unknown, at = '#'): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => refs(v, `${at}/${i}`));
  if (value && typeof value === 'object') {
    return Object.entries(value as Json).flatMap(([k, v]) =>
      k === '$ref' && typeof v === 'string' ? [[at, v] as [string, string]] : refs(v, `${at}/${k}`),
    );
  }
  return [];
}

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document of the agent API, served without authentication', () => {
    expect(document['openapi']).toBe('3.1.0');
    expect(document['info']).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(Object.keys(document['paths']).sort()).toEqual([
      '/media/{submission_id}/{name}',
      '/v1/agents/{agent_slug}/feedback',
      '/v1/frame-submissions',
      '/v1/frame-submissions/{submission_id}',
      '/v1/media-uploads',
      '/v1/media-uploads/{upload_id}',
    ]);
    expect(document['components'].securitySchemes.bearerAuth).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    const operations = Object.values(document['paths'] as Json).flatMap((item) =>
      Object.values(item as Json),
    ) as Json[];
    expect(operations.map((o) => o['operationId']).sort()).toEqual([
      'createFrameSubmission',
      'createMediaUpload',
      'getAgentFeedback',
      'getFrameSubmission',
      'getMedia',
      'getMediaUpload',
      'listFrameSubmissions',
    ]);
    for (const op of operations) {
      expect(Object.keys(op['responses']).some((s) => /^2\d\d$/.test(s))).toBe(true);
      // Signed media URLs carry their own authorization: no key, so no 401.
      if (op['operationId'] === 'getMedia') expect(op['security']).toEqual([]);
      else expect(op['responses']['401']).toBeDefined();
    }
    expect(document['paths']['/v1/frame-submissions'].post.responses['202']).toBeDefined();
    expect(document['paths']['/v1/media-uploads'].post.responses['201']).toBeDefined();
  });

  it('compiles every schema with ajv, and every $ref resolves', () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv);
    for (const [name, schema] of Object.entries(document['components'].schemas as Json)) {
      expect(() => ajv.compile(schema), name).not.toThrow();
    }
    for (const [at, ref] of refs(document)) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((node, part) => (node as Json | undefined)?.[part], document);
      expect(target, `${at} → ${ref}`).toBeDefined();
    }
    for (const op of Object.values(document['paths'] as Json).flatMap((item) =>
      Object.values(item as Json),
    ) as Json[]) {
      for (const p of op['parameters'] ?? []) expect(() => ajv.compile(p.schema)).not.toThrow();
    }
  });

  it('carries request examples that the server would accept', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const [name, schema] of Object.entries(document['components'].schemas as Json)) ajv.addSchema(schema, name);
    const upload = document['paths']['/v1/media-uploads'].post.requestBody.content['application/json'].example;
    const frame = document['paths']['/v1/frame-submissions'].post.requestBody.content['multipart/form-data'].example;
    expect(ajv.validate('MediaUploadRequest', upload), ajv.errorsText()).toBe(true);
    expect(ajv.validate('FrameMetadata', frame.metadata), ajv.errorsText()).toBe(true);
    expect(() => api.deps.validators.frameMetadata(frame.metadata)).not.toThrow();
  });

  it('states the configured limits, from the same schemas the server validates with', () => {
    const metadata = document['components'].schemas.FrameMetadata;
    expect(metadata.properties.click_zones.maxItems).toBe(7);
    expect(metadata.required.sort()).toEqual(['agent_slug', 'channel_slug', 'date']);
    expect(document['paths']['/v1/frame-submissions'].post.description).toContain('16384');
    expect(document['components'].schemas.MediaUploadRequest.required.sort()).toEqual([
      'agent_slug',
      'byte_size',
      'channel_slug',
      'content_type',
      'filename',
      'media_type',
    ]);
  });

  it('describes what the server enforces: 8 zones fail, 7 pass schema validation', async () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv);
    const validate = ajv.compile(document['components'].schemas.FrameMetadata);
    const zone = { x: 0, y: 0, width: 0.1, height: 0.1, url: 'https://e.com' };
    const ok = { agent_slug: 'a', channel_slug: 'b', date: '20260101', click_zones: Array(7).fill(zone) };
    expect(validate(ok)).toBe(true);
    expect(validate({ ...ok, click_zones: Array(8).fill(zone) })).toBe(false);
    expect(() => api.deps.validators.frameMetadata({ ...ok, click_zones: Array(8).fill(zone) })).toThrow(/validation/);
  });
});

describe('the response checker the integration tests use', () => {
  it('catches bodies and error answers that break the document', async () => {
    const checker = await contractChecker(api.url);
    expect(checker.check('GET', '/v1/frame-submissions/sub_x', 200, 'application/json', { id: 'sub_x' })).toMatch(
      /FrameSubmission/,
    );
    expect(checker.check('GET', '/v1/media-uploads/upl_x', 404, 'text/html', '<h1>')).toMatch(/problem\+json/);
    expect(checker.check('POST', '/v1/media-uploads', 202, 'application/json', {})).toMatch(/undocumented status/);
    expect(checker.check('GET', '/v1/media-uploads/upl_x', 500, 'application/problem+json', { code: 'x' })).toMatch(
      /Problem/,
    );
  });
});

describe('GET /docs', () => {
  it("is Redoc's page, loading Redoc's bundle from this server (no CDN)", async () => {
    const res = await api.call('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('<redoc spec-url="/v1/openapi.json"');
    const scripts = [...res.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    expect(scripts).toEqual([' src="/docs/redoc.standalone.js"']);
    expect(res.text).not.toMatch(/https?:\/\//);

    const bundle = await fetch(`${api.url}/docs/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect(await bundle.text()).toBe(await readFile(REDOC_BUNDLE, 'utf8'));
  });

  it('renders every operation in chromium, with request examples, and nothing breaks the CSP', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
      page.on('response', (r) => void (r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`)));
      page.on('pageerror', (e) => void problems.push(e.message));
      const offsite: string[] = [];
      await page.route('**', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${api.url}/`) || url.startsWith(`blob:${api.url}/`)) return route.continue();
        offsite.push(url);
        return route.abort();
      });
      await page.goto(`${api.url}/docs`);
      for (const summary of ['Submit an image frame', 'Create a video upload session (and its submission)']) {
        await page.getByRole('heading', { name: summary }).first().waitFor({ timeout: 30_000 });
      }
      const text = await page.locator('body').innerText();
      for (const op of ['/v1/frame-submissions/{submission_id}', '/v1/media-uploads/{upload_id}']) {
        expect(text).toContain(op);
      }
      expect(text).toContain(requestExamples.mediaUpload.filename);
      // Redoc's "API docs by Redocly" footer points an <img> at its CDN; the CSP blocks it, so the
      // page fetches nothing off-site (the image hides itself when it fails to load).
      const cdnLogo = /^Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates/;
      expect(problems.filter((p) => !cdnLogo.test(p))).toEqual([]);
      expect(offsite).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
