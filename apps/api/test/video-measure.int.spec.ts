// The local driver's measurement of black, frozen and silent stretches (docs/video.md), and the
// review policies that read it (docs/policies.md), over real ffmpeg and generated clips.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReviewer } from '@framedesk/access';
import { compilePolicy, policyAdmin, policyCache, simulatePolicy } from '@framedesk/policies';
import { createVideoService } from '@framedesk/submissions';
import { makeMeasuredClip } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from './review-harness';
import { useVideoHarness, type VideoHarness } from './video-harness';

function basicForm(bytes: Buffer): FormData {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'video/mp4' }), 'clip.mp4');
  return form;
}

describe('local video provider: black, frozen and silent stretches measured and read by policies (docs/video.md)', () => {
  const video = useVideoHarness();
  let h: VideoHarness;
  let key: string;
  let dir: string;
  const clips: Record<'black' | 'still' | 'pattern', Buffer> = {} as never;
  beforeAll(async () => {
    h = video.harness;
    key = await h.agentKey();
    dir = mkdtempSync(join(tmpdir(), 'fd-measured-clips-'));
    for (const kind of ['black', 'still', 'pattern'] as const)
      clips[kind] = readFileSync(makeMeasuredClip(dir, `${kind}.mp4`, kind, 3));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const service = (tools?: { ffmpegPath: string }) =>
    createVideoService({
      db: h.db,
      storage: h.deps.storage,
      queues: h.deps.queues,
      provider: h.deps.videoProvider,
      config: h.deps.config,
      policies: { cache: policyCache(h.db, { checkEveryMs: 0 }) },
      ...(tools ? { tools } : {}),
    });
  async function uploaded(bytes: Buffer): Promise<string> {
    const seeded = await h.seedUpload({ byteSize: bytes.length, protocol: 'basic' });
    expect((await fetch(seeded.uploadUrl, { method: 'POST', body: basicForm(bytes) })).status).toBe(201);
    return seeded.submissionId;
  }
  /** The recorded `signals` (the row carries the jsonb column; SubmissionRow does not type it). */
  const signalsOf = async (id: string) =>
    ((await h.statusOf(id)) as unknown as { signals: Record<string, unknown> | null } | null)?.signals;
  const BLACK_RULE = {
    name: 'black-render',
    when: 'frame.media.type == "video" && signals.black_share > 0.3',
    action: 'reject',
    reason: 'Low quality',
  };

  it('records the measurement as signals; a rule on signals.black_share rejects the black render as the system, named to the agent', async () => {
    await policyAdmin(h.db).set('news', { rules: [BLACK_RULE] }, 'test');
    const black = await uploaded(clips.black);
    expect(await service().processVideo(black)).toBe('rejected');
    const row = await h.statusOf(black);
    expect(row).toMatchObject({ status: 'rejected', reviewRule: 'black-render', reviewerId: null });
    const signals = (await signalsOf(black))!;
    expect(signals['black_share']).toBeGreaterThanOrEqual(0.9);
    expect(signals['has_audio']).toBe(false);
    expect(signals).not.toHaveProperty('silent_share');
    const resource = await fetch(`${h.url}/v1/frame-submissions/${black}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(await resource.json()).toMatchObject({
      status: 'rejected',
      review: { decision: 'rejected', reason: 'Low quality', decided_by: 'policy', rule: 'black-render' },
    });

    // The moving pattern with a tone: measured, nothing black, so it waits for people.
    const pattern = await uploaded(clips.pattern);
    expect(await service().processVideo(pattern)).toBe('needs_review');
    expect(await signalsOf(pattern)).toMatchObject({
      black_share: 0,
      frozen_share: 0,
      silent_share: 0,
      has_audio: true,
      frame_rate: 10, // the clip's rate, from ffprobe: the workbench steps by it
    });
    // The looped still: frozen.
    await policyAdmin(h.db).clear('news', 'test');
    const still = await uploaded(clips.still);
    expect(await service().processVideo(still)).toBe('needs_review');
    const stillSignals = (await signalsOf(still)) as Record<string, number>;
    expect(stillSignals['frozen_share']).toBeGreaterThanOrEqual(0.9);
  });

  it('policy simulate replays the recorded signals of a video people rejected', async () => {
    await policyAdmin(h.db).clear('news', 'test');
    const black = await uploaded(clips.black);
    expect(await service().processVideo(black)).toBe('needs_review');
    const reviewer = await createReviewer(h.db, {
      email: 'v@example.com',
      password: 'a long password here',
      role: 'admin',
    });
    const done = await h.db.transition({
      id: black,
      to: 'rejected',
      actor: { type: 'reviewer', id: reviewer.id },
      patch: { reviewDecision: 'rejected', reviewerId: reviewer.id, reviewedAt: new Date() },
    });
    expect(done.ok).toBe(true);
    const compiled = compilePolicy({ rules: [BLACK_RULE] }, ['Low quality']);
    if (!compiled.ok) throw new Error('policy did not compile');
    const channel = (await h.db.repos.channels.ensure('news')).channel;
    const result = await simulatePolicy(h.db, {
      channelId: channel.id,
      channelSlug: 'news',
      policy: compiled.policy,
      since: new Date(Date.now() - 86_400_000),
    });
    expect(result.rules[0]).toMatchObject({ rule: 'black-render', matched: 1, people_rejected: 1, agreed: 1 });
  });

  it('a video ffmpeg cannot measure still reaches review, signals absent and the reason recorded', async () => {
    // ffmpeg that fails only the measuring pass (the one with blackdetect), as a damaged stream would.
    const wrapper = join(dir, 'ffmpeg-no-measure');
    writeFileSync(
      wrapper,
      '#!/bin/sh\ncase "$*" in *blackdetect*) echo "corrupt stream" >&2; exit 1;; esac\nexec ffmpeg "$@"\n',
    );
    chmodSync(wrapper, 0o755);
    await policyAdmin(h.db).set('news', { rules: [BLACK_RULE] }, 'test');
    const black = await uploaded(clips.black);
    expect(await service({ ffmpegPath: wrapper }).processVideo(black)).toBe('needs_review');
    const row = await h.statusOf(black);
    expect(row).toMatchObject({ status: 'needs_review' });
    expect(await signalsOf(black)).toBeNull();
    const events = await h.db.repos.submissions.events(black);
    expect(events.at(-1)?.data).toMatchObject({ measure_error: expect.stringContaining('corrupt stream') });
    // The sprite is made all the same (the single pass failed; the sprite was then made alone).
    expect(events.at(-1)?.data).not.toHaveProperty('sprite_error');
    expect(await h.db.repos.mediaObjects.find(black, 'variant', 'sprite')).toMatchObject({ width: 480 });
  });

  it('decodes the video once for the measurement and the sprite: one ffmpeg run besides the poster', async () => {
    // ffmpeg that writes each run's arguments to a log, a line each, then runs.
    const log = join(dir, 'ffmpeg-runs.log');
    const wrapper = join(dir, 'ffmpeg-counting');
    writeFileSync(log, '');
    writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec ffmpeg "$@"\n`);
    chmodSync(wrapper, 0o755);
    await policyAdmin(h.db).clear('news', 'test');
    const id = await uploaded(clips.pattern);
    expect(await service({ ffmpegPath: wrapper }).processVideo(id)).toBe('needs_review');

    const runs = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(runs).toHaveLength(2);
    const [poster, pass] = runs;
    expect(poster).toContain('-frames:v 1 -f image2');
    for (const filter of ['blackdetect', 'freezedetect', 'silencedetect', 'tile=3x1']) expect(pass).toContain(filter);
    // Both of the pass's products were recorded.
    expect(await signalsOf(id)).toMatchObject({ black_share: 0, frozen_share: 0, silent_share: 0, has_audio: true });
    expect(await h.db.repos.mediaObjects.find(id, 'variant', 'sprite')).toMatchObject({ width: 480, height: 120 });
    expect(await h.db.repos.mediaObjects.find(id, 'variant', 'sprite_vtt')).toMatchObject({ contentType: 'text/vtt' });
  });

  it('stores a thumbnail sprite and its WebVTT track as variants, linked from GET and served like the preview', async () => {
    await policyAdmin(h.db).clear('news', 'test');
    const id = await uploaded(clips.pattern);
    expect(await service().processVideo(id)).toBe('needs_review');
    const sprite = await h.db.repos.mediaObjects.find(id, 'variant', 'sprite');
    expect(sprite).toMatchObject({ contentType: 'image/webp', width: 480, height: 120 });
    const resource = (await (
      await fetch(`${h.url}/v1/frame-submissions/${id}`, { headers: { Authorization: `Bearer ${key}` } })
    ).json()) as { variants: Record<string, string> };
    const spriteResponse = await fetch(resource.variants['sprite']!);
    expect(spriteResponse.status).toBe(200);
    expect(spriteResponse.headers.get('content-type')).toBe('image/webp');
    const track = await fetch(resource.variants['sprite_vtt']!);
    expect(track.status).toBe(200);
    expect(track.headers.get('content-type')).toContain('text/vtt');
    const text = await track.text();
    expect(text.startsWith('WEBVTT\n')).toBe(true);
    expect(text).toContain('00:00:02.000 --> 00:00:03.000\nsprite.webp#xywh=320,0,160,120');

    // The reviewer's detail: the sprite, its track and the measured stretches for the player.
    const reviewer = await signIn(h, 'player@example.com', 'a long password here');
    const detail = (await (await reviewer.call('GET', `/review/submissions/${id}`)).json()) as {
      variants: Record<string, string>;
      measurement: Record<string, unknown> | null;
      duration_ms: number;
    };
    expect(Object.keys(detail.variants)).toEqual(expect.arrayContaining(['sprite', 'sprite_vtt']));
    expect(detail.measurement).toEqual(await signalsOf(id));
    expect(detail.measurement).toMatchObject({ black_share: 0, has_audio: true, stretches: { black: [], frozen: [] } });
  });
});
