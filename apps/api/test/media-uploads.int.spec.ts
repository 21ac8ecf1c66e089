import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '@framedesk/queues';
import { startTestApi, type TestApi } from './harness';

let api: TestApi;
let key: string;
let otherKey: string;
const request = (over: Record<string, unknown> = {}) => ({
  agent_slug: 'cam-a',
  channel_slug: 'news',
  media_type: 'video',
  filename: 'clip.mp4',
  content_type: 'video/mp4',
  byte_size: 1_000_000,
  ...over,
});
const create = (body: unknown, k = key, idem = randomUUID()) =>
  api.call('POST', '/v1/media-uploads', {
    key: k,
    headers: { 'content-type': 'application/json', 'idempotency-key': idem },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  api = await startTestApi();
  key = await api.createAgent('cam-a', ['news']);
  otherKey = await api.createAgent('cam-b', ['news']);
});
afterAll(async () => {
  await api?.stop();
});

describe('POST /v1/media-uploads', () => {
  it('creates the session and its submission: 201 waiting_for_upload, vendor_stream, expiry, expiry job', async () => {
    const before = Date.now();
    const res = await create(request({ date: '20261101', metadata: { title: 'Clip', external_ref: 'r1' } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'waiting_for_upload',
      provider: 'vendor_stream',
      upload_protocol: 'basic',
      filename: 'clip.mp4',
      byte_size: 1_000_000,
      failure: null,
    });
    expect(res.body.id).toMatch(/^upl_/);
    expect(res.body.submission_id).toMatch(/^sub_/);
    expect(new URL(res.body.upload_url).origin).toBe(api.url);
    const expires = new Date(res.body.expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(res.headers.get('location')).toBe(`/v1/media-uploads/${res.body.id}`);
    const submission = await api.call('GET', `/v1/frame-submissions/${res.body.submission_id}`, { key });
    expect(submission.body).toMatchObject({
      status: 'waiting_for_upload',
      media_type: 'video',
      media_upload_id: res.body.id,
      date: '20261101',
      title: 'Clip',
      external_ref: 'r1',
    });
    const job = await api.deps.queues
      .queue('upload-expiry')
      .getJob(jobIdFor('upload.expire', { submissionId: res.body.submission_id, uploadId: res.body.id }));
    expect(job?.data).toEqual({
      submissionId: res.body.submission_id,
      uploadId: res.body.id,
      origin: { requestId: res.headers.get('x-request-id') },
    });
    expect(job!.opts.delay).toBeGreaterThan(3500_000);
  });

  it('uses tus above media.small_video_max_bytes and defaults the date to today (UTC)', async () => {
    const res = await create(request({ byte_size: 52_428_801 }));
    expect(res.body.upload_protocol).toBe('tus');
    const submission = await api.call('GET', `/v1/frame-submissions/${res.body.submission_id}`, { key });
    expect(submission.body.date).toBe(new Date().toISOString().slice(0, 10).replaceAll('-', ''));
  });

  it('replays on the same key and refuses a different body under it', async () => {
    const idem = randomUUID();
    const first = await create(request(), key, idem);
    const again = await create(request(), key, `"${idem}"`);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body]).toEqual([201, 'true', first.body]);
    expect((await create(request({ byte_size: 5 }), key, idem)).body.code).toBe('idempotency_key_reused');
  });

  it('refuses a content_type outside media.allowed_video_mime_types with 415', async () => {
    const res = await create(request({ content_type: 'video/x-msvideo' }));
    expect([res.status, res.body.code]).toEqual([415, 'unsupported_media_type']);
    const form = await api.call('POST', '/v1/media-uploads', {
      key,
      headers: { 'content-type': 'text/plain', 'idempotency-key': randomUUID() },
      body: 'x',
    });
    expect([form.status, form.body.code]).toEqual([415, 'unsupported_media_type']);
  });

  it('answers 422 listing every bad or missing field', async () => {
    const res = await create({
      agent_slug: 'cam-a',
      media_type: 'image',
      byte_size: 0,
      extra: true,
      metadata: { click_zones: [{ x: 0.5, y: 0, width: 0.6, height: 0.1, url: 'https://e.com' }] },
      date: '20261340',
    });
    expect([res.status, res.body.code]).toEqual([422, 'validation_failed']);
    const pointers = (res.body.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining(['/channel_slug', '/media_type', '/filename', '/content_type', '/byte_size', '/extra']),
    );
    const rules = await create(
      request({
        date: '20261340',
        metadata: { click_zones: [{ x: 0.5, y: 0, width: 0.6, height: 0.1, url: 'https://e.com' }] },
      }),
    );
    expect((rules.body.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/date',
      '/metadata/click_zones/0/width',
    ]);
    const malformed = await api.call('POST', '/v1/media-uploads', {
      key,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: '{"a":',
    });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'invalid_request']);
  });

  it("answers 403 for another agent's slug or a channel the agent may not use", async () => {
    expect((await create(request({ agent_slug: 'cam-b' }))).status).toBe(403);
    await api.deps.db.repos.channels.ensure('private');
    expect((await create(request({ channel_slug: 'private' }))).body.code).toBe('forbidden');
  });

  it('refuses every video type when the allowed list is empty', async () => {
    const strict = await (
      await import('./harness')
    ).startTestApi({ config: (c) => void (c.media.allowed_video_mime_types = []) });
    try {
      const k = await strict.createAgent('cam-a', ['news']);
      const res = await strict.call('POST', '/v1/media-uploads', {
        key: k,
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(request()),
      });
      expect([res.status, res.body.code]).toEqual([415, 'unsupported_media_type']);
    } finally {
      await strict.stop();
    }
  });
});

describe('GET /v1/media-uploads/{id}', () => {
  it("returns the session with its submission's status and failure; another agent's id is 404", async () => {
    const created = await create(request());
    const res = await api.call('GET', `/v1/media-uploads/${created.body.id}`, { key });
    expect([res.status, res.body]).toEqual([200, created.body]);
    await api.deps.db.transition({
      id: created.body.submission_id,
      to: 'failed',
      actor: { type: 'system' },
      patch: { failureCode: 'upload_expired', failureMessage: 'No media arrived before expires_at.' },
    });
    const failed = await api.call('GET', `/v1/media-uploads/${created.body.id}`, { key });
    expect(failed.body).toMatchObject({
      status: 'failed',
      failure: { code: 'upload_expired', message: 'No media arrived before expires_at.' },
    });
    const probe = await api.call('GET', `/v1/media-uploads/${created.body.id}`, { key: otherKey });
    const unknown = await api.call('GET', `/v1/media-uploads/upl_${'0'.repeat(22)}`, { key: otherKey });
    expect([probe.status, probe.body.code]).toEqual([404, 'not_found']);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    const wrong = await api.call('PUT', `/v1/media-uploads/${created.body.id}`, { key });
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET']);
  });

  it('every response of this file matched /v1/openapi.json', () => {
    expect(api.contractViolations()).toEqual([]);
  });
});
