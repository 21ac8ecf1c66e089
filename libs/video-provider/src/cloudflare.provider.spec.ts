import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCloudflare, startFakeCloudflare } from './cloudflare.fake';
import { createCloudflareVideoProvider, mapCloudflareVideo } from './cloudflare.provider';
import { createVideoProvider, VideoProviderConfigError } from './video-provider.factory';
import {
  type CreateUploadInput,
  InvalidNotificationError,
  type VideoProvider,
  VideoProviderError,
} from './video-provider';
import { signWebhook } from './webhook-signature';

const SECRET = 'whsec_test_secret';

function input(protocol: 'basic' | 'tus', expiresInSeconds = 3600): CreateUploadInput {
  return {
    uploadId: 'upl_1',
    submissionId: 'sub_1',
    byteSize: protocol === 'tus' ? 300_000_000 : 1000,
    contentType: 'video/mp4',
    filename: 'clip.mp4',
    expiresAt: new Date(Date.now() + expiresInSeconds * 1000),
    maxDurationSeconds: 600,
    protocol,
  };
}

describe('Cloudflare Stream driver (against a local fake of the API)', () => {
  let fake: FakeCloudflare;
  let provider: VideoProvider;
  beforeAll(async () => {
    fake = await startFakeCloudflare();
    provider = createCloudflareVideoProvider({
      apiBase: fake.apiBase,
      accountId: fake.accountId,
      apiToken: fake.apiToken,
      webhookSecret: SECRET,
    });
  });
  afterAll(() => fake.close());

  it('creates a basic session with a direct creator upload, passing maxDurationSeconds and an RFC 3339 expiry', async () => {
    const session = await provider.createUpload(input('basic'));
    const request = fake.requests.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/client/v4/accounts/${fake.accountId}/stream/direct_upload`);
    expect(request.headers.authorization).toBe(`Bearer ${fake.apiToken}`);
    const body = JSON.parse(request.body) as { maxDurationSeconds: number; expiry: string };
    expect(body.maxDurationSeconds).toBe(600);
    expect(body.expiry).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(session.providerRef).toMatch(/^[0-9a-f]{32}$/);
    expect(session.uploadUrl).toContain(`/upload/${session.providerRef}`);
    expect(session.tokenHash).toBeUndefined();
  });

  it('creates a tus session: Location is the upload URL, stream-media-id the uid', async () => {
    const session = await provider.createUpload(input('tus'));
    const request = fake.requests.at(-1)!;
    expect(request.path).toBe(`/client/v4/accounts/${fake.accountId}/stream`);
    expect(request.query['direct_user']).toBe('true');
    expect(request.headers['tus-resumable']).toBe('1.0.0');
    expect(request.headers['upload-length']).toBe('300000000');
    const meta = Object.fromEntries(
      String(request.headers['upload-metadata'])
        .split(',')
        .map((p) => p.split(' '))
        .map(([k, v]) => [k, Buffer.from(v!, 'base64').toString()]),
    );
    expect(meta['maxDurationSeconds']).toBe('600');
    expect(Date.parse(meta['expiry']!)).toBeGreaterThan(Date.now());
    expect(session.uploadUrl).toContain(`/tus/${session.providerRef}`);
  });

  it('surfaces Cloudflare refusing an expiry outside its window as a provider error', async () => {
    await expect(provider.createUpload(input('basic', 60))).rejects.toBeInstanceOf(VideoProviderError);
  });

  it('surfaces a bad token as a provider error', async () => {
    const wrong = createCloudflareVideoProvider({ apiBase: fake.apiBase, accountId: fake.accountId, apiToken: 'nope' });
    await expect(wrong.createUpload(input('basic'))).rejects.toThrow(/Authentication error/);
  });

  it('maps every status.state as REFERENCE.md says', async () => {
    const { providerRef: uid } = await provider.createUpload(input('basic'));
    expect(await provider.getVideo(uid)).toEqual({ state: 'waiting_for_upload' });
    for (const state of ['downloading', 'queued', 'inprogress']) {
      fake.setVideo(uid, { status: { state } });
      expect(await provider.getVideo(uid)).toEqual({ state: 'media_processing' });
    }
    fake.setVideo(uid, {
      status: { state: 'ready' },
      readyToStream: true,
      duration: 12.5,
      size: 4242,
      input: { width: 1920, height: 1080 },
      thumbnail: 'https://cdn.example/thumb.jpg',
      playback: { hls: 'https://cdn.example/v.m3u8' },
    });
    expect(await provider.getVideo(uid)).toEqual({
      state: 'ready',
      durationSeconds: 12.5,
      width: 1920,
      height: 1080,
      byteSize: 4242,
      thumbnailUrl: 'https://cdn.example/thumb.jpg',
      playbackUrl: 'https://cdn.example/v.m3u8',
    });
    const errors: [string, string][] = [
      ['ERR_DURATION_EXCEED_CONSTRAINT', 'duration_exceeded'],
      ['ERR_NON_VIDEO', 'invalid_video'],
      ['ERR_MALFORMED_VIDEO', 'invalid_video'],
      ['ERR_DURATION_TOO_SHORT', 'invalid_video'],
      ['ERR_SOMETHING_NEW', 'provider_error'],
    ];
    for (const [reason, code] of errors) {
      fake.setVideo(uid, { status: { state: 'error', errorReasonCode: reason } });
      expect(await provider.getVideo(uid)).toMatchObject({ state: 'failed', failureCode: code });
    }
    // The older spelling of the field.
    fake.setVideo(uid, { status: { state: 'error', errReasonCode: 'ERR_NON_VIDEO' } });
    expect(await provider.getVideo(uid)).toMatchObject({ state: 'failed', failureCode: 'invalid_video' });
  });

  it('reports a video Cloudflare no longer knows as failed, and deletes', async () => {
    const { providerRef: uid } = await provider.createUpload(input('basic'));
    await provider.deleteVideo(uid);
    expect(await provider.getVideo(uid)).toMatchObject({ state: 'failed', failureCode: 'provider_error' });
  });

  it('treats an unknown future state as still processing', () => {
    expect(mapCloudflareVideo({ uid: 'x', status: { state: 'brand-new' } })).toEqual({ state: 'media_processing' });
  });
});

describe('Stream webhook verification', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const t = Math.floor(now.getTime() / 1000);
  const provider = createCloudflareVideoProvider({
    apiBase: 'http://127.0.0.1:9',
    accountId: 'a',
    apiToken: 't',
    webhookSecret: SECRET,
    now: () => now,
  });
  const body = Buffer.from(
    JSON.stringify({
      uid: 'abc',
      readyToStream: true,
      status: { state: 'ready' },
      duration: 3,
      input: { width: 640, height: 360 },
    }),
  );

  it('accepts a correctly signed notification and maps its video', () => {
    const parsed = provider.parseNotification(body, { 'webhook-signature': signWebhook(SECRET, body, t) });
    expect(parsed).toEqual({
      providerRef: 'abc',
      video: { state: 'ready', durationSeconds: 3, width: 640, height: 360 },
    });
  });

  it('refuses a forged signature, a tampered body, a missing header and a stale time', () => {
    const forged = signWebhook('another-secret', body, t);
    expect(() => provider.parseNotification(body, { 'webhook-signature': forged })).toThrow(InvalidNotificationError);
    const tampered = Buffer.from(body.toString().replace('"abc"', '"abd"'));
    expect(() => provider.parseNotification(tampered, { 'webhook-signature': signWebhook(SECRET, body, t) })).toThrow(
      InvalidNotificationError,
    );
    expect(() => provider.parseNotification(body, {})).toThrow(InvalidNotificationError);
    expect(() => provider.parseNotification(body, { 'webhook-signature': 'time=abc,sig1=zz' })).toThrow(
      InvalidNotificationError,
    );
    expect(() => provider.parseNotification(body, { 'webhook-signature': signWebhook(SECRET, body, t - 301) })).toThrow(
      /old/,
    );
    expect(() => provider.parseNotification(body, { 'webhook-signature': signWebhook(SECRET, body, t + 301) })).toThrow(
      /old/,
    );
  });

  it('refuses every notification when no secret is configured', () => {
    const unsigned = createCloudflareVideoProvider({
      apiBase: 'http://127.0.0.1:9',
      accountId: 'a',
      apiToken: 't',
      now: () => now,
    });
    expect(() => unsigned.parseNotification(body, { 'webhook-signature': signWebhook(SECRET, body, t) })).toThrow(
      InvalidNotificationError,
    );
  });
});

describe('createVideoProvider', () => {
  const settings = {
    VIDEO_PROVIDER: 'cloudflare' as const,
    CLOUDFLARE_API_BASE: 'http://127.0.0.1:9/client/v4',
    CLOUDFLARE_ACCOUNT_ID: 'a',
    CLOUDFLARE_API_TOKEN: 't',
    CLOUDFLARE_WEBHOOK_SECRET: SECRET,
    CLOUDFLARE_WEBHOOK_MAX_AGE_SECONDS: 300,
  };
  const config = (expires: number) => ({
    api: { base_url: 'http://127.0.0.1:3000', metadata_max_bytes: 1000 },
    delivery: { vendor_image_variants: ['public'], vendor_stream_upload_expires_seconds: expires },
  });

  it('refuses a cloudflare configuration outside Stream expiry bounds, naming the setting', () => {
    expect(() => createVideoProvider(settings, config(119))).toThrow(VideoProviderConfigError);
    expect(() => createVideoProvider(settings, config(21_601))).toThrow(
      /vendor_stream_upload_expires_seconds is 21601/,
    );
    expect(createVideoProvider(settings, config(120)).name).toBe('cloudflare');
    expect(createVideoProvider(settings, config(21_600)).name).toBe('cloudflare');
  });

  it('lets the local driver take any expiry the schema allows', () => {
    expect(createVideoProvider({ ...settings, VIDEO_PROVIDER: 'local' }, config(60)).name).toBe('local');
  });
});
