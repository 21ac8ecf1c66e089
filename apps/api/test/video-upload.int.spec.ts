import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { policyAdmin, policyCache } from '@framedesk/policies';
import { createVideoService, createVideoUploadService } from '@framedesk/submissions';
import { makeClip } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headOffset, patch, TUS } from './tus-client';
import { useVideoHarness, type VideoHarness } from './video-harness';

function basicForm(bytes: Buffer, field = 'file', type = 'video/mp4'): FormData {
  const form = new FormData();
  form.append(field, new Blob([bytes], { type }), 'clip.mp4');
  return form;
}

/** Sends `sent` of a PATCH announcing `bytes.length`, then drops the connection. */
async function brokenPatch(url: string, offset: number, bytes: Buffer, sent: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const req = httpRequest(url, {
      method: 'PATCH',
      headers: {
        ...TUS,
        'Content-Type': 'application/offset+octet-stream',
        'Upload-Offset': String(offset),
        'Content-Length': String(bytes.length),
      },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(bytes.subarray(0, sent), () => setTimeout(() => req.destroy(), 300));
  });
}

/** Resumable partials (fs driver: @tus/file-store under STORAGE_FS_ROOT/.tus). */
function tusFiles(h: VideoHarness): string[] {
  try {
    return readdirSync(join(h.storageRoot, 'storage', '.tus'));
  } catch {
    return [];
  }
}

function spoolFiles(h: VideoHarness): string[] {
  try {
    return readdirSync(join(h.storageRoot, 'storage', '.uploads'));
  } catch {
    return [];
  }
}

describe('local video provider: uploads to needs_review', () => {
  const video = useVideoHarness();
  let h: VideoHarness;
  let clip: Buffer;
  beforeAll(() => {
    ({ harness: h, clip } = video);
  });

  it('basic: one multipart POST, then ffprobe, poster and preview → needs_review; a second upload is 409', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'basic' });
    expect(seeded.uploadUrl).toMatch(new RegExp(`^${h.url}/uploads/basic/${seeded.uploadId}\\?token=`));
    const response = await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(clip) });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      upload_id: seeded.uploadId,
      submission_id: seeded.submissionId,
      status: 'media_processing',
    });
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
    const original = await h.db.repos.mediaObjects.find(seeded.submissionId, 'original', 'original');
    expect(original).toMatchObject({ contentType: 'video/mp4', byteSize: BigInt(clip.length) });

    const outcome = await h.deps.video.processVideo(seeded.submissionId);
    expect(outcome).toBe('needs_review');
    const done = await h.statusOf(seeded.submissionId);
    expect(done).toMatchObject({ status: 'needs_review', width: 320, height: 240 });
    expect(done?.durationMs).toBeGreaterThan(1500);
    expect(done?.durationMs).toBeLessThan(2500);
    const poster = await h.db.repos.mediaObjects.find(seeded.submissionId, 'poster', 'poster');
    expect(poster).toMatchObject({ contentType: 'image/jpeg', width: 320, height: 240 });
    expect(await h.deps.storage.stat(poster!.bucket, poster!.key)).not.toBeNull();
    const preview = await h.db.repos.mediaObjects.find(seeded.submissionId, 'variant', 'preview');
    expect(preview?.contentType).toBe('image/webp');

    const again = await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(clip) });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(await again.json()).toMatchObject({ code: 'upload_already_completed' });
    // A second processing run (a duplicate job) changes nothing.
    expect(await h.deps.video.processVideo(seeded.submissionId)).toBe('skipped');
  });

  it('tus: interrupted mid-way, resumed with HEAD + PATCH, ends needs_review with a poster', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    expect(seeded.uploadUrl).toContain(`/uploads/tus/${seeded.uploadId}?token=`);
    const options = await fetch(seeded.uploadUrl, { method: 'OPTIONS' });
    expect(options.headers.get('tus-version')).toBe('1.0.0');
    const created = await fetch(seeded.uploadUrl, {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': String(clip.length) },
    });
    expect(created.status).toBe(201);
    const location = new URL(created.headers.get('location')!, h.url).toString();
    expect(await headOffset(location)).toBe(0);

    const first = Math.floor(clip.length / 3);
    const one = await patch(location, 0, clip.subarray(0, first));
    expect(one.status).toBe(204);
    expect(one.headers.get('upload-offset')).toBe(String(first));

    // The connection breaks after part of the second chunk.
    await brokenPatch(location, first, clip.subarray(first), Math.floor((clip.length - first) / 2));
    let offset = await headOffset(location);
    for (let i = 0; i < 20 && offset === first; i++) {
      await new Promise((r) => setTimeout(r, 100));
      offset = await headOffset(location);
    }
    expect(offset).toBeGreaterThan(first);
    expect(offset).toBeLessThan(clip.length);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('waiting_for_upload');

    // A stale offset is refused with 409, then the client resumes from what HEAD says.
    const stale = await patch(location, first, clip.subarray(first));
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: 'upload_offset_mismatch' });
    const rest = await patch(location, offset, clip.subarray(offset));
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(clip.length));
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');

    expect(await h.deps.video.processVideo(seeded.submissionId)).toBe('needs_review');
    expect(await h.db.repos.mediaObjects.find(seeded.submissionId, 'poster', 'poster')).not.toBeNull();
    const stored = await h.db.repos.mediaObjects.find(seeded.submissionId, 'original', 'original');
    expect(stored?.byteSize).toBe(BigInt(clip.length));
    expect(spoolFiles(h)).toEqual([]);
    expect(tusFiles(h).filter((name) => name.startsWith(seeded.uploadId))).toEqual([]);

    const late = await patch(location, clip.length, Buffer.from('x'));
    expect(late.status).toBe(409);
  });

  it('tus: storage unreachable while tus reads the upload is 503 with Retry-After (never 500); the upload goes on once it is back', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    const store = h.deps.tusStore;
    const getUpload = store.getUpload.bind(store);
    let calls = 0;
    // The first read (our own check that the upload exists) works; tus's own read meets the outage.
    store.getUpload = async (id: string) => {
      if (++calls === 2) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      return getUpload(id);
    };
    try {
      const head = await fetch(seeded.uploadUrl, { method: 'HEAD', headers: TUS });
      expect(head.status).toBe(503);
      expect(head.headers.get('retry-after')).toBe('5');
      const body = await fetch(seeded.uploadUrl, {
        method: 'PATCH',
        headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' },
        body: clip,
      });
      expect(body.status).toBe(204);
    } finally {
      store.getUpload = getUpload;
    }
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
  });

  it('refuses more bytes than declared (413): basic keeps nothing, a tus PATCH changes nothing', async () => {
    const small = await h.seedUpload({ byteSize: clip.length - 100, protocol: 'basic' });
    const response = await fetch(small.uploadUrl, { method: 'POST', body: basicForm(clip) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload_too_large' });
    expect(await h.db.repos.mediaObjects.find(small.submissionId, 'original', 'original')).toBeNull();
    expect((await h.statusOf(small.submissionId))?.status).toBe('waiting_for_upload');

    const tus = await h.seedUpload({ byteSize: clip.length - 100, protocol: 'tus' });
    const head = await patch(tus.uploadUrl, 0, clip.subarray(0, 1000));
    expect(head.status).toBe(204);
    const over = await patch(tus.uploadUrl, 1000, clip.subarray(1000));
    expect(over.status).toBe(413);
    expect(await headOffset(tus.uploadUrl)).toBe(1000);
    const tooLong = await fetch(tus.uploadUrl, {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': String(clip.length) },
    });
    expect(tooLong.status).toBe(413);
    expect(spoolFiles(h)).toEqual([]);
  });

  it('refuses a renamed text file (415) and leaves the session open for the real video', async () => {
    const text = Buffer.from('just some text pretending to be a video\n'.repeat(50));
    const seeded = await h.seedUpload({ byteSize: text.length, protocol: 'basic' });
    const response = await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(text) });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: 'unsupported_media_type' });
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('waiting_for_upload');

    const tus = await h.seedUpload({ byteSize: text.length, protocol: 'tus' });
    const refused = await patch(tus.uploadUrl, 0, text);
    expect(refused.status).toBe(415);
    expect(await headOffset(tus.uploadUrl)).toBe(0);
  });

  it('an MP4 header over garbage passes the sniff but ends failed invalid_video', async () => {
    const fake = Buffer.concat([clip.subarray(0, 32), Buffer.alloc(4000, 7)]);
    const seeded = await h.seedUpload({ byteSize: fake.length, protocol: 'basic' });
    expect((await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(fake) })).status).toBe(201);
    expect(await h.deps.video.processVideo(seeded.submissionId)).toBe('failed');
    expect(await h.statusOf(seeded.submissionId)).toMatchObject({ status: 'failed', failureCode: 'invalid_video' });
  });

  it('an over-long clip ends failed duration_exceeded', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'basic' });
    expect((await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(clip) })).status).toBe(201);
    const strict = createVideoService({
      db: h.db,
      storage: h.deps.storage,
      queues: h.deps.queues,
      provider: h.deps.videoProvider,
      config: { ...h.deps.config, media: { ...h.deps.config.media, video_max_duration_seconds: 1 } },
    });
    expect(await strict.processVideo(seeded.submissionId)).toBe('failed');
    expect(await h.statusOf(seeded.submissionId)).toMatchObject({
      status: 'failed',
      failureCode: 'duration_exceeded',
    });
  });

  it('promoted straight away when review is not required', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'basic' });
    expect((await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(clip) })).status).toBe(201);
    const open = createVideoService({
      db: h.db,
      storage: h.deps.storage,
      queues: h.deps.queues,
      provider: h.deps.videoProvider,
      config: { ...h.deps.config, approval_defaults: { ...h.deps.config.approval_defaults, requires_review: false } },
    });
    expect(await open.processVideo(seeded.submissionId)).toBe('promoted');
    const events = await h.db.repos.submissions.events(seeded.submissionId);
    expect(events.map((e) => e.toStatus)).toEqual(['waiting_for_upload', 'media_processing', 'promoted']);
    expect(events.at(-1)?.actorType).toBe('system');
  });

  it('two uploads racing to one session: one is taken, the other 409', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'basic' });
    const statuses = await Promise.all(
      [0, 1].map(async () => (await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(clip) })).status),
    );
    expect(statuses.sort()).toEqual([201, 409]);
    const events = await h.db.repos.submissions.events(seeded.submissionId);
    expect(events.filter((e) => e.toStatus === 'media_processing')).toHaveLength(1);
    expect(spoolFiles(h)).toEqual([]);
  });

  it('an upload after expires_at is 410 upload_expired and the session ends failed upload_expired', async () => {
    const seeded = await h.seedUpload({
      byteSize: clip.length,
      protocol: 'basic',
      expiresAt: new Date(Date.now() - 1000),
    });
    const response = await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(clip) });
    expect(response.status).toBe(410);
    expect(await response.json()).toMatchObject({ code: 'upload_expired' });
    expect(await h.statusOf(seeded.submissionId)).toMatchObject({ status: 'failed', failureCode: 'upload_expired' });
    const again = await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(clip) });
    expect(again.status).toBe(410);
    const key = await h.agentKey();
    const resource = await fetch(`${h.url}/v1/media-uploads/${seeded.uploadId}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(resource.status).toBe(200);
    expect(await resource.json()).toMatchObject({
      id: seeded.uploadId,
      status: 'failed',
      failure: { code: 'upload_expired' },
    });
    const tus = await h.seedUpload({ byteSize: clip.length, protocol: 'tus', expiresAt: new Date(Date.now() - 1000) });
    expect((await fetch(tus.uploadUrl, { method: 'HEAD', headers: TUS })).status).toBe(410);
  });

  it('an expired session drops its tus partial from the shared store', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    expect((await patch(seeded.uploadUrl, 0, clip.subarray(0, 500))).status).toBe(204);
    expect(tusFiles(h).some((name) => name.startsWith(seeded.uploadId))).toBe(true);
    const later = createVideoUploadService({
      db: h.db,
      storage: h.deps.storage,
      queues: h.deps.queues,
      config: h.deps.config,
      spoolDir: join(h.storageRoot, 'storage', '.uploads'),
      locker: h.deps.uploadLocker,
      dropPartial: (id) => h.deps.tusStore.discard(id),
      now: () => new Date(Date.now() + 2 * 3600_000),
    });
    const token = new URL(seeded.uploadUrl).searchParams.get('token') ?? '';
    await expect(later.authorize(seeded.uploadId, token)).rejects.toMatchObject({ code: 'upload_expired' });
    expect(tusFiles(h).filter((name) => name.startsWith(seeded.uploadId))).toEqual([]);
  });

  it('a PATCH past the declared length is refused without touching an upload another request is writing', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    const half = Math.floor(clip.length / 2);
    // A slow writer: half of its body now, the rest after the overshooting PATCH was answered.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = new Promise<number>((resolve, reject) => {
      const req = httpRequest(seeded.uploadUrl, {
        method: 'PATCH',
        headers: {
          ...TUS,
          'Content-Type': 'application/offset+octet-stream',
          'Upload-Offset': '0',
          'Content-Length': String(clip.length),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(clip.subarray(0, half), () => void gate.then(() => req.end(clip.subarray(half))));
    });
    const over = await patch(seeded.uploadUrl, 0, Buffer.concat([clip, Buffer.from('extra')]));
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ code: 'payload_too_large' });
    release();
    expect(await slow).toBe(204);
    expect((await h.statusOf(seeded.submissionId))?.status).toBe('media_processing');
    const stored = await h.db.repos.mediaObjects.find(seeded.submissionId, 'original', 'original');
    expect(stored?.byteSize).toBe(BigInt(clip.length));
  });

  it('the token is the credential: a wrong one is 404, and tus needs Tus-Resumable (412)', async () => {
    const seeded = await h.seedUpload({ byteSize: clip.length, protocol: 'tus' });
    const wrong = seeded.uploadUrl.replace(/token=[^&]+/, 'token=not-the-token');
    expect((await fetch(wrong, { method: 'HEAD', headers: TUS })).status).toBe(404);
    const bare = await fetch(seeded.uploadUrl, { method: 'HEAD' });
    expect(bare.status).toBe(412);
    expect(bare.headers.get('tus-version')).toBe('1.0.0');
    const basicWrong = (await h.seedUpload({ byteSize: clip.length, protocol: 'basic' })).uploadUrl.replace(
      /token=[^&]+/,
      'token=x',
    );
    const refused = await fetch(basicWrong, { method: 'POST', body: basicForm(clip) });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe("local video provider: the channel's review policy routes a ready video (docs/policies.md)", () => {
  const video = useVideoHarness();
  let h: VideoHarness;
  let key: string;
  let dir: string;
  let short: Buffer;
  let long: Buffer;
  beforeAll(async () => {
    h = video.harness;
    key = await h.agentKey(); // the agent `bot` and its channel `news`
    dir = mkdtempSync(join(tmpdir(), 'fd-policy-clips-'));
    short = readFileSync(makeClip(dir, 'short.mp4', 1));
    long = readFileSync(makeClip(dir, 'long.mp4', 3));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const setPolicy = (rules: unknown[]) => policyAdmin(h.db).set('news', { rules }, 'test');
  // As the worker builds it, with a cache that reads the policy afresh every time.
  const service = () =>
    createVideoService({
      db: h.db,
      storage: h.deps.storage,
      queues: h.deps.queues,
      provider: h.deps.videoProvider,
      config: h.deps.config,
      policies: { cache: policyCache(h.db, { checkEveryMs: 0 }) },
    });
  async function uploaded(bytes: Buffer): Promise<string> {
    const seeded = await h.seedUpload({ byteSize: bytes.length, protocol: 'basic' });
    expect((await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(bytes) })).status).toBe(201);
    return seeded.submissionId;
  }

  it('a reject rule on duration rejects a short video as the system; a review rule routes a longer one; signals never match', async () => {
    await setPolicy([
      // A video has no pixel signals: a rule reading them fails, so does not match.
      { name: 'pixels', when: 'signals.luminance >= 0.0', action: 'promote' },
      {
        name: 'too-short',
        when: 'frame.media.type == "video" && frame.media.duration < 2.0',
        action: 'reject',
        reason: 'Low quality',
      },
      {
        name: 'clips',
        when: 'frame.media.type == "video" && frame.media.width == 320 && frame.media.bytes > 0',
        action: 'review',
        priority: 'high',
        due: '1h',
      },
    ]);
    const rejected = await uploaded(short);
    expect(await service().processVideo(rejected)).toBe('rejected');
    expect(await h.statusOf(rejected)).toMatchObject({
      status: 'rejected',
      reviewDecision: 'rejected',
      reviewReason: 'Low quality',
      reviewRule: 'too-short',
      reviewerId: null,
    });
    const events = await h.db.repos.submissions.events(rejected);
    expect(events.at(-1)).toMatchObject({ actorType: 'system', toStatus: 'rejected', data: { rule: 'too-short' } });
    const resource = await fetch(`${h.url}/v1/frame-submissions/${rejected}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(await resource.json()).toMatchObject({
      status: 'rejected',
      review: { decision: 'rejected', reason: 'Low quality', decided_by: 'policy', rule: 'too-short' },
    });

    const reviewed = await uploaded(long);
    const before = Date.now();
    expect(await service().processVideo(reviewed)).toBe('needs_review');
    const row = await h.statusOf(reviewed);
    expect(row).toMatchObject({ status: 'needs_review', reviewPriority: 1, reviewRule: null });
    expect(row?.policyOutcome).toMatchObject({ rule: 'clips', action: 'review' });
    expect(row!.dueAt!.getTime()).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    // The poster and its preview are stored as before.
    expect(await h.db.repos.mediaObjects.find(reviewed, 'variant', 'preview')).not.toBeNull();
  });

  it('with no policy on the channel a short video waits for review as before', async () => {
    await policyAdmin(h.db).clear('news', 'test');
    const id = await uploaded(short);
    expect(await service().processVideo(id)).toBe('needs_review');
    expect(await h.statusOf(id)).toMatchObject({ status: 'needs_review', reviewRule: null, policyOutcome: null });
  });
});
