// A new user following docs/api.md with curl: the `# doc-test` blocks, run by bash against the real api + worker.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip, type Stack, startStack } from '@framedesk/testing';
import { docBlocks, outputOf, runBlocks } from './docs-walkthrough';

// Small enough that the docs' big.mp4 (a few hundred KB here) takes the tus path, clip.mp4 the basic one.
const SMALL_VIDEO_MAX_BYTES = 100_000;

describe('docs/api.md walkthrough against the real stack', () => {
  let stack: Stack;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack({ config: (config) => void (config.media.small_video_max_bytes = SMALL_VIDEO_MAX_BYTES) });
    const key = await stack.createAgent('demo-agent', ['demo']);
    dir = await mkdtemp(join(tmpdir(), 'framedesk-docs-'));
    env = { FRAMEDESK_URL: stack.apiUrl, FRAMEDESK_API_KEY: key };
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('gives a 202 for the image, replays it, refuses media_upload_id with 415, and polling sees needs_review', async () => {
    const result = await runBlocks(
      docBlocks().filter((b) => b.tag === ''),
      dir,
      env,
    );
    expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: expect.any(String),
    });

    const created = outputOf(result.runs, "-F 'image=@frame.png;type=image/png' \\\n  -o submission.json");
    expect(created).toContain('HTTP 202');
    const submission = JSON.parse(created.split('\n')[1]!) as { id: string; status: string };
    expect(submission).toMatchObject({
      id: expect.stringMatching(/^sub_/),
      status: 'received',
      agent_slug: 'demo-agent',
      channel_slug: 'demo',
      date: '20260115',
    });

    const replay = outputOf(result.runs, 'curl -sS -i');
    expect(replay).toMatch(/^HTTP\/1\.1 202/m);
    expect(replay).toMatch(/^idempotent-replayed: true$/im);
    expect(replay).toContain(`"id":"${submission.id}"`);

    const refused = outputOf(result.runs, 'media_upload_id=');
    expect(refused).toContain('HTTP 415');
    expect(JSON.parse(refused.split('\n')[0]!)).toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
      request_id: expect.any(String),
    });

    expect(outputOf(result.runs, '"$FRAMEDESK_URL/v1/frame-submissions/$SUBMISSION_ID" \\\n  -H')).toContain(
      `"id":"${submission.id}"`,
    );

    const polled = outputOf(result.runs, 'for attempt').trim().split('\n');
    expect(polled.at(-1)).toBe('status: needs_review');

    expect(outputOf(result.runs, '--data-urlencode channel_slug=demo')).toContain(`${submission.id} needs_review`);
  }, 120_000);

  it('takes a video through a basic and a tus upload session to needs_review', async () => {
    makeClip(dir, 'clip.mp4', 1, '160x120');
    makeClip(dir, 'big.mp4', 3, '640x360', { pattern: 'testsrc2', rate: 25, bitrate: '2M' });
    expect((await stat(join(dir, 'clip.mp4'))).size).toBeLessThan(SMALL_VIDEO_MAX_BYTES);
    const bigSize = (await stat(join(dir, 'big.mp4'))).size;
    expect(bigSize).toBeGreaterThan(SMALL_VIDEO_MAX_BYTES * 2);

    const result = await runBlocks(
      docBlocks().filter((b) => b.tag === 'video'),
      dir,
      { ...env, CHUNK: String(SMALL_VIDEO_MAX_BYTES) },
      200_000,
    );
    expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: expect.any(String),
    });

    const basic = outputOf(result.runs, 'clip.mp4').trim().split('\n');
    expect(basic[0]).toBe('HTTP 201');
    expect(basic[1]).toMatch(/^upl_\S+ waiting_for_upload basic$/);
    expect(basic).toContain('HTTP 201');
    expect(basic.at(-1)).toBe('upload status: needs_review');

    const tus = outputOf(result.runs, 'big.mp4').trim().split('\n');
    expect(tus[0]).toBe('HTTP 201');
    expect(tus[1]).toMatch(/^upl_\S+ waiting_for_upload tus$/);
    const sent = tus.filter((l) => l.startsWith('sent '));
    expect(sent.length).toBe(Math.ceil(bigSize / SMALL_VIDEO_MAX_BYTES));
    expect(sent.at(-1)).toBe(`sent ${bigSize} of ${bigSize} bytes`);
    expect(tus.at(-1)).toBe('upload status: needs_review');
  }, 240_000);
});
