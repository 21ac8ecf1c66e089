// @framedesk/client and `framedesk submit` against the real api + worker processes.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FramedeskClient, FramedeskError } from '@framedesk/client';
import { makeClip, makePng, type Stack, startStack } from '@framedesk/testing';

const SMALL_VIDEO_MAX_BYTES = 100_000;
const metadata = (extra: object = {}) => ({ agent_slug: 'bot', channel_slug: 'news', date: '20260115', ...extra });

describe('client and CLI against the real stack', () => {
  let stack: Stack;
  let key: string;
  let client: FramedeskClient;
  let dir: string;
  let clip: Buffer;
  let bigClip: Buffer;

  beforeAll(async () => {
    stack = await startStack({ config: (config) => void (config.media.small_video_max_bytes = SMALL_VIDEO_MAX_BYTES) });
    key = await stack.createAgent('bot', ['news']);
    await stack.createAgent('other', ['elsewhere']);
    client = createClient({ baseUrl: stack.apiUrl, apiKey: key });
    dir = await mkdtemp(join(tmpdir(), 'framedesk-client-'));
    await writeFile(join(dir, 'frame.png'), makePng(64, 48, { seed: 3 }));
    makeClip(dir, 'clip.mp4', 1, '160x120');
    makeClip(dir, 'big.mp4', 3, '640x360', { pattern: 'testsrc2', rate: 25, bitrate: '2M' });
    clip = await readFile(join(dir, 'clip.mp4'));
    bigClip = await readFile(join(dir, 'big.mp4'));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('@framedesk/client', () => {
    it('submits an image, replays it under the same key, and waits for needs_review with variants', async () => {
      const image = makePng(32, 32, { seed: 9 });
      const idempotencyKey = crypto.randomUUID();
      const created = await client.submitFrame(
        { metadata: metadata({ title: 'Hi', external_ref: 'r-1' }), image },
        { idempotencyKey },
      );
      expect(created).toMatchObject({
        status: 'received',
        agent_slug: 'bot',
        channel_slug: 'news',
        title: 'Hi',
        external_ref: 'r-1',
      });
      const replayed = await client.submitFrame(
        { metadata: metadata({ title: 'Hi', external_ref: 'r-1' }), image },
        { idempotencyKey },
      );
      expect(replayed.id).toBe(created.id);

      const ready = await client.waitForStatus(created.id, ['needs_review'], { timeoutMs: 60_000, intervalMs: 200 });
      expect(ready.status).toBe('needs_review');
      expect(Object.keys(ready.variants).length).toBeGreaterThan(0);
      expect(await client.getSubmission(created.id)).toMatchObject({ id: created.id, status: 'needs_review' });

      const listed = [];
      for await (const s of client.listSubmissions({ channel_slug: 'news', limit: 1 })) listed.push(s.id);
      expect(listed).toContain(created.id);
      expect(new Set(listed).size).toBe(listed.length);
    }, 90_000);

    it.each([
      [
        'bytes that are not a PNG',
        () => client.submitFrame({ metadata: metadata(), image: Buffer.from('not a png at all') }),
        415,
        'unsupported_media_type',
      ],
      [
        'a bad date',
        () => client.submitFrame({ metadata: metadata({ date: '20260231' }), image: makePng(8, 8) }),
        422,
        'validation_failed',
      ],
      [
        'another agent',
        () => client.submitFrame({ metadata: metadata({ agent_slug: 'other' }), image: makePng(8, 8) }),
        403,
        'forbidden',
      ],
      ['an unknown id', () => client.getSubmission('sub_0000000000000000000000'), 404, 'not_found'],
      [
        'a bad key',
        () =>
          createClient({ baseUrl: stack.apiUrl, apiKey: 'fd_live_nope' }).getSubmission('sub_0000000000000000000000'),
        401,
        'unauthenticated',
      ],
    ] as const)('maps %s to a FramedeskError', async (_name, call, status, code) => {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FramedeskError);
      expect(error).toMatchObject({ status, code, requestId: expect.stringMatching(/^req_/) });
      if (code === 'validation_failed') expect((error as FramedeskError).errors.length).toBeGreaterThan(0);
    });

    it('uploads a small video with the basic protocol to needs_review', async () => {
      const upload = await client.createVideoUpload({
        agent_slug: 'bot',
        channel_slug: 'news',
        media_type: 'video',
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: clip.length,
      });
      expect(upload).toMatchObject({ status: 'waiting_for_upload', upload_protocol: 'basic' });
      await client.uploadVideo(upload, clip, { contentType: 'video/mp4', filename: 'clip.mp4' });
      expect(
        (await client.waitForStatus(upload.id, ['needs_review'], { timeoutMs: 60_000, intervalMs: 200 })).status,
      ).toBe('needs_review');
      const submission = await client.getSubmission(upload.submission_id);
      expect(submission).toMatchObject({ media_type: 'video', media_upload_id: upload.id });
      expect(Object.keys(submission.variants).length).toBeGreaterThan(0); // the poster
    }, 90_000);

    it('resumes a tus upload whose connection broke mid-PATCH, to needs_review', async () => {
      let patches = 0;
      // The second PATCH sends part of its chunk and then breaks, as a dropped connection would.
      const flaky: typeof fetch = async (input, init) => {
        if (init?.method === 'PATCH' && ++patches === 2 && init.body instanceof Blob) {
          const half = new Uint8Array(await init.body.slice(0, Math.floor(init.body.size / 2)).arrayBuffer());
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(half);
              setTimeout(() => controller.error(new Error('connection dropped')), 200);
            },
          });
          return fetch(input, { ...init, body, duplex: 'half' } as RequestInit);
        }
        return fetch(input, init);
      };
      const resumable = createClient({ baseUrl: stack.apiUrl, apiKey: key, fetch: flaky });
      const upload = await resumable.createVideoUpload({
        agent_slug: 'bot',
        channel_slug: 'news',
        media_type: 'video',
        filename: 'big.mp4',
        content_type: 'video/mp4',
        byte_size: bigClip.length,
      });
      expect(upload.upload_protocol).toBe('tus');
      const progress: number[] = [];
      await resumable.uploadVideo(upload, bigClip, {
        contentType: 'video/mp4',
        chunkSize: 128 * 1024,
        onProgress: (p) => progress.push(p.bytesSent),
      });
      expect(patches).toBeGreaterThan(Math.ceil(bigClip.length / (128 * 1024)));
      expect(progress.at(-1)).toBe(bigClip.length);
      expect(
        (await resumable.waitForStatus(upload.id, ['needs_review'], { timeoutMs: 60_000, intervalMs: 200 })).status,
      ).toBe('needs_review');
    }, 90_000);
  });

  describe('framedesk submit', () => {
    const submit = (args: string[]) =>
      stack.cli([
        'submit',
        ...args,
        '--agent',
        'bot',
        '--channel',
        'news',
        '--api-key',
        key,
        '--base-url',
        stack.apiUrl,
      ]);

    it('submits a PNG and waits for needs_review, printing one JSON line', async () => {
      const result = await submit([
        join(dir, 'frame.png'),
        '--date',
        '20260115',
        '--title',
        'From the CLI',
        '--wait',
        '--json',
      ]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        submission: { status: 'needs_review', title: 'From the CLI', date: '20260115' },
      });
    }, 90_000);

    it('reports an API refusal in one line and exits 1', async () => {
      const result = await stack.cli([
        'submit',
        join(dir, 'frame.png'),
        '--agent',
        'other',
        '--channel',
        'news',
        '--api-key',
        key,
        '--base-url',
        stack.apiUrl,
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^framedesk: 403 forbidden: .* \[request req_\w+\]$/),
      ]);
    }, 60_000);

    it('does the whole video flow for a clip', async () => {
      const result = await submit([join(dir, 'clip.mp4'), '--wait']);
      expect(result.stderr).toContain('(basic)');
      expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^sub_\w+ needs_review\n$/) });
    }, 90_000);
  });
});
