import { policyAdmin } from '@framedesk/policies';
import { createVideoService } from '@framedesk/submissions';
import { makePng } from '@framedesk/testing';
import { type FakeCloudflare, VideoProviderConfigError } from '@framedesk/video-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudflareVideoHarness, startCloudflareVideoHarness, startVideoHarness } from './video-harness';

const SECRET = 'whsec_integration';

describe('cloudflare video provider: polling, signed webhooks, expiry (against a local fake of Stream)', () => {
  let h: CloudflareVideoHarness;
  let fake: FakeCloudflare;
  beforeAll(async () => {
    h = await startCloudflareVideoHarness(SECRET, { POLICY_CHECK_SECONDS: '1' });
    fake = h.fake;
  });
  afterAll(async () => h?.close());

  const providerRefOf = async (uploadId: string) => (await h.db.repos.mediaUploads.findById(uploadId))!.providerRef!;
  const eventCount = async (submissionId: string) => (await h.db.repos.submissions.events(submissionId)).length;

  it('sessions are Stream upload URLs (basic: direct creator upload; tus: the Location of the creation call)', async () => {
    const basic = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    expect(basic.uploadUrl).toContain(`/upload/${await providerRefOf(basic.uploadId)}`);
    const tus = await h.seedUpload({ byteSize: 300_000_000, protocol: 'tus' });
    expect(tus.uploadUrl).toContain(`/tus/${await providerRefOf(tus.uploadId)}`);
    const creation = fake.requests.findLast((r) => r.query['direct_user'] === 'true');
    expect(creation?.headers['upload-length']).toBe('300000000');
  });

  it('polling maps Stream states onto the submission, and a valid webhook finishes it', async () => {
    const seeded = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    const uid = await providerRefOf(seeded.uploadId);
    expect(await h.deps.video.processVideo(seeded.submissionId)).toBe('waiting');
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('waiting_for_upload');
    // Nothing uploaded yet: the next poll is scheduled, later rather than sooner.
    const delayed = await h.deps.queues.queue('video-processing').getDelayed();
    const poll = delayed.find((job) => (job.data as { submissionId: string }).submissionId === seeded.submissionId);
    expect(poll?.opts.delay).toBeGreaterThan(10_000);
    fake.setVideo(uid, { status: { state: 'inprogress' } });
    expect(await h.deps.video.processVideo(seeded.submissionId)).toBe('processing');
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');

    const video = {
      uid,
      readyToStream: true,
      status: { state: 'ready' },
      duration: 4.2,
      input: { width: 1280, height: 720 },
      thumbnail: 'https://cdn.example/t.jpg',
    };
    const response = await h.notify(video);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ received: true, outcome: 'needs_review' });
    expect(await h.statusOf(seeded.submissionId)).toMatchObject({
      status: 'needs_review',
      durationMs: 4200,
      width: 1280,
      height: 720,
    });

    // The same notification again (a replay or a retry by Stream) changes nothing.
    const events = await eventCount(seeded.submissionId);
    const replay = await h.notify(video);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ outcome: 'skipped' });
    expect(await eventCount(seeded.submissionId)).toBe(events);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('needs_review');
  });

  it('a ready video keeps the Stream thumbnail as its poster and its playback URL, for the agent and the reviewer', async () => {
    const seeded = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    const uid = await providerRefOf(seeded.uploadId);
    const ready = fake.readyVideo(uid, {
      duration: 3,
      width: 320,
      height: 180,
      thumbnail: makePng(320, 180, { seed: 7 }),
      thumbnailType: 'image/png',
    });
    const response = await h.notify(ready);
    expect(await response.json()).toMatchObject({ outcome: 'needs_review' });

    const poster = await h.db.repos.mediaObjects.find(seeded.submissionId, 'poster', 'poster');
    expect(poster).toMatchObject({ contentType: 'image/png', width: 320, height: 180 });
    const playback = await h.db.repos.mediaObjects.find(seeded.submissionId, 'external', 'playback');
    expect(playback?.key).toBe(ready.playback?.hls);

    const agent = await fetch(`${h.url}/v1/frame-submissions/${seeded.submissionId}`, {
      headers: { authorization: `Bearer ${await h.agentKey()}` },
    });
    const body = (await agent.json()) as { variants: Record<string, string> };
    expect(body.variants['playback']).toBe(ready.playback?.hls);
    // The poster is ours now: a signed link that serves the thumbnail's bytes.
    const posterResponse = await fetch(body.variants['poster']!);
    expect(posterResponse.status).toBe(200);
    expect(Buffer.from(await posterResponse.arrayBuffer()).equals(makePng(320, 180, { seed: 7 }))).toBe(true);
  });

  it('a forged, tampered or stale webhook is 401 invalid_signature and changes nothing', async () => {
    const seeded = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    const uid = await providerRefOf(seeded.uploadId);
    const video = { uid, readyToStream: true, status: { state: 'ready' }, duration: 3 };
    const before = await eventCount(seeded.submissionId);
    for (const response of [
      await h.notify(video, { secret: 'guessed-secret' }),
      await h.notify(video, { time: Math.floor(Date.now() / 1000) - 3600 }),
      await fetch(`${h.url}/provider-events/vendor-stream`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(video),
      }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ code: 'invalid_signature' });
    }
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('waiting_for_upload');
    expect(await eventCount(seeded.submissionId)).toBe(before);
  });

  it("a webhook's ready video is routed by the channel's review policy in the API (a duration rule rejects it)", async () => {
    const seeded = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    const uid = await providerRefOf(seeded.uploadId);
    const set = await policyAdmin(h.db).set(
      'news',
      {
        rules: [
          {
            name: 'too-short',
            when: 'frame.media.type == "video" && frame.media.duration < 2.0 && frame.media.width == 320',
            action: 'reject',
            reason: 'Low quality',
          },
        ],
      },
      'test',
    );
    try {
      // The API's policy cache re-reads a changed policy after POLICY_CHECK_SECONDS (1 s here).
      const news = (await h.db.repos.channels.ensure('news')).channel.id;
      await expect
        .poll(async () => (await h.deps.policyCache.forChannel(news))?.version, { timeout: 30_000 })
        .toBe(set.version);
      const response = await h.notify({
        uid,
        readyToStream: true,
        status: { state: 'ready' },
        duration: 1.5,
        input: { width: 320, height: 240 },
      });
      expect(response.status).toBe(200);
      expect(await h.statusOf(seeded.submissionId)).toMatchObject({
        status: 'rejected',
        reviewReason: 'Low quality',
        reviewRule: 'too-short',
        reviewerId: null,
        durationMs: 1500,
      });
    } finally {
      await policyAdmin(h.db).clear('news', 'test');
    }
  });

  it('a Stream error maps to our failure codes', async () => {
    const seeded = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    const uid = await providerRefOf(seeded.uploadId);
    const response = await h.notify({
      uid,
      status: { state: 'error', errorReasonCode: 'ERR_DURATION_EXCEED_CONSTRAINT' },
    });
    expect(response.status).toBe(200);
    expect(await h.statusOf(seeded.submissionId)).toMatchObject({ status: 'failed', failureCode: 'duration_exceeded' });

    const other = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    fake.setVideo(await providerRefOf(other.uploadId), {
      status: { state: 'error', errorReasonCode: 'ERR_NON_VIDEO' },
    });
    expect(await h.deps.video.processVideo(other.submissionId)).toBe('failed');
    expect(await h.statusOf(other.submissionId)).toMatchObject({ status: 'failed', failureCode: 'invalid_video' });
  });

  it('at expiry: nothing uploaded → upload_expired; bytes at Stream after all → processing goes on', async () => {
    const later = () => new Date(Date.now() + 2 * 3600_000);
    const service = createVideoService({
      db: h.db,
      storage: h.deps.storage,
      queues: h.deps.queues,
      provider: h.deps.videoProvider,
      config: h.deps.config,
      now: later,
    });
    const idle = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    expect(await service.expireUpload(idle.submissionId)).toBe('failed');
    expect(await h.statusOf(idle.submissionId)).toMatchObject({ status: 'failed', failureCode: 'upload_expired' });

    const uploaded = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    fake.setVideo(await providerRefOf(uploaded.uploadId), { status: { state: 'queued' } });
    expect(await service.expireUpload(uploaded.submissionId)).toBe('processing');
    expect((await h.statusOf(uploaded.submissionId))?.status).toBe('media_processing');
  });

  it('refuses to start with an upload expiry outside Stream bounds', async () => {
    await expect(
      startVideoHarness({
        env: {
          VIDEO_PROVIDER: 'cloudflare',
          CLOUDFLARE_API_BASE: fake.apiBase,
          CLOUDFLARE_ACCOUNT_ID: 'a',
          CLOUDFLARE_API_TOKEN: 't',
        },
        config: (c) => ({ ...c, delivery: { ...c.delivery, vendor_stream_upload_expires_seconds: 60 } }),
      }),
    ).rejects.toBeInstanceOf(VideoProviderConfigError);
  });
});
