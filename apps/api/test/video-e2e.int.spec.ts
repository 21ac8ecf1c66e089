import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeClip, type Stack, startStack } from '@framedesk/testing';
import { type FakeCloudflare, signWebhook, startFakeCloudflare } from '@framedesk/video-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface UploadResource {
  id: string;
  status: string;
  upload_url: string;
  upload_protocol: 'basic' | 'tus';
  submission_id: string;
  expires_at: string;
  failure: { code: string } | null;
}

/** The whole video flow through the real API and worker processes, as an agent does it. */
describe('video end to end (api + worker processes, local provider)', () => {
  let stack: Stack;
  let key: string;
  let dir: string;
  let short: Buffer;
  let long: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-e2e-clips-'));
    short = readFileSync(makeClip(dir, 'short.mp4', 1));
    long = readFileSync(makeClip(dir, 'long.mp4', 3));
    // The short clip goes up with basic, the longer one with tus.
    stack = await startStack({ config: (c) => void (c['media'].small_video_max_bytes = short.length) });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${stack.apiUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, ...init.headers } });

  async function createUpload(byteSize: number): Promise<UploadResource> {
    const response = await api('/v1/media-uploads', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({
        agent_slug: 'bot',
        channel_slug: 'news',
        media_type: 'video',
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: byteSize,
      }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as UploadResource;
  }

  async function waitForStatus(submissionId: string, wanted: string): Promise<Record<string, unknown>> {
    let last: Record<string, unknown> = {};
    for (let i = 0; i < 150; i++) {
      last = (await (await api(`/v1/frame-submissions/${submissionId}`)).json()) as Record<string, unknown>;
      if (last['status'] === wanted) return last;
      if (last['status'] === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`submission ${submissionId} did not reach ${wanted}: ${JSON.stringify(last)}`);
  }

  it('basic: create the session, POST the file, and the service takes it to needs_review with a poster', async () => {
    const upload = await createUpload(short.length);
    expect(upload).toMatchObject({ status: 'waiting_for_upload', upload_protocol: 'basic' });
    expect(upload.upload_url.startsWith(`${stack.apiUrl}/uploads/basic/${upload.id}?token=`)).toBe(true);
    const form = new FormData();
    form.append('file', new Blob([short], { type: 'video/mp4' }), 'short.mp4');
    // The one-time token in the URL is the credential: no API key is sent to upload_url.
    expect((await fetch(upload.upload_url, { method: 'POST', body: form })).status).toBe(201);

    const done = await waitForStatus(upload.submission_id, 'needs_review');
    const variants = done['variants'] as Record<string, string>;
    expect(Object.keys(variants).sort()).toEqual(['poster', 'preview', 'sprite', 'sprite_vtt']);
    const poster = await fetch(variants['poster']!);
    expect(poster.status).toBe(200);
    expect(poster.headers.get('content-type')).toContain('image/jpeg');
    const session = (await (await api(`/v1/media-uploads/${upload.id}`)).json()) as UploadResource;
    expect(session.status).toBe('needs_review');
  });

  it('tus: interrupted after the first chunk, resumed from HEAD, ends needs_review', async () => {
    const upload = await createUpload(long.length);
    expect(upload.upload_protocol).toBe('tus');
    const tus = { 'Tus-Resumable': '1.0.0' };
    const half = Math.floor(long.length / 2);
    const first = await fetch(upload.upload_url, {
      method: 'PATCH',
      headers: { ...tus, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' },
      body: long.subarray(0, half),
    });
    expect(first.status).toBe(204);
    // The client "lost" its state: it asks where to resume.
    const head = await fetch(upload.upload_url, { method: 'HEAD', headers: tus });
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset).toBe(half);
    const rest = await fetch(upload.upload_url, {
      method: 'PATCH',
      headers: { ...tus, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset) },
      body: long.subarray(offset),
    });
    expect(rest.status).toBe(204);
    const done = await waitForStatus(upload.submission_id, 'needs_review');
    expect(Object.keys(done['variants'] as object)).toContain('poster');
  });
});

describe('video end to end (api + worker processes, cloudflare provider against a fake Stream)', () => {
  const secret = 'whsec_e2e';
  let fake: FakeCloudflare;
  let stack: Stack;
  let key: string;
  beforeAll(async () => {
    fake = await startFakeCloudflare();
    stack = await startStack({
      env: fake.settings(secret),
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await fake?.close();
  });

  it('the API refuses to start with an upload expiry Cloudflare cannot honour', async () => {
    const refused = startStack({
      env: {
        VIDEO_PROVIDER: 'cloudflare',
        CLOUDFLARE_API_BASE: fake.apiBase,
        CLOUDFLARE_ACCOUNT_ID: fake.accountId,
        CLOUDFLARE_API_TOKEN: fake.apiToken,
      },
      config: (c) => void (c['delivery'].vendor_stream_upload_expires_seconds = 60),
      workers: 0,
    });
    await expect(refused).rejects.toThrow(/vendor_stream_upload_expires_seconds is 60/);
  }, 60_000);

  it('the session is a Stream direct upload; a signed webhook takes it to needs_review, a forged one is refused', async () => {
    const created = await fetch(`${stack.apiUrl}/v1/media-uploads`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({
        agent_slug: 'bot',
        channel_slug: 'news',
        media_type: 'video',
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: 5000,
      }),
    });
    expect(created.status).toBe(201);
    const upload = (await created.json()) as UploadResource;
    const uid = [...fake.videos.keys()].at(-1)!;
    expect(upload.upload_url).toContain(`/upload/${uid}`);
    const direct = JSON.parse(fake.requests.find((r) => r.path.endsWith('/direct_upload'))!.body) as {
      maxDurationSeconds: number;
      expiry: string;
    };
    expect(direct.maxDurationSeconds).toBe(600);
    expect(Math.abs(Date.parse(direct.expiry) - Date.parse(upload.expires_at))).toBeLessThan(1000);

    const raw = JSON.stringify({
      uid,
      readyToStream: true,
      status: { state: 'ready' },
      duration: 2,
      input: { width: 320, height: 240 },
    });
    const send = (signature: string) =>
      fetch(`${stack.apiUrl}/provider-events/vendor-stream`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Webhook-Signature': signature },
        body: raw,
      });
    const now = Math.floor(Date.now() / 1000);
    expect((await send(signWebhook('not-the-secret', raw, now))).status).toBe(401);
    const get = async () =>
      (await (
        await fetch(`${stack.apiUrl}/v1/media-uploads/${upload.id}`, { headers: { Authorization: `Bearer ${key}` } })
      ).json()) as UploadResource;
    expect((await get()).status).toBe('waiting_for_upload');
    expect((await send(signWebhook(secret, raw, now))).status).toBe(200);
    expect((await get()).status).toBe('needs_review');
  });
});
