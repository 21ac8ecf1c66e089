// The reviewer's keyboard and a video, in chromium: j/k move through the queue, r opens the
// rejection form whose reason the agent then reads, and a real clip made by ffmpeg, uploaded
// through the agent API and processed by the real worker, plays in the detail view.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, makeClip, makePng, type Stack, startStack } from '@framedesk/testing';
import { workbenchDist } from './support';

const PASSWORD = 'keyboard-password-long-enough';
const REVIEWER = 'kim@example.com';
const AGENT = 'keys-bot';
const CHANNEL = 'keys-news';
const TITLES = ['First frame', 'Second frame', 'Third frame'];
const VIDEO_TITLE = 'Harbour clip';

/** The agent's side of the API, with a Bearer key. */
function agentApi(stack: Stack, key: string) {
  const call = (path: string, init: RequestInit = {}) =>
    fetch(stack.apiUrl + path, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
  const created = async (res: Response, status: number): Promise<Record<string, string>> => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  return {
    async submitImage(title: string, seed: number): Promise<string> {
      const form = new FormData();
      const metadata = { agent_slug: AGENT, channel_slug: CHANNEL, date: '20260315', title };
      form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
      form.append('image', new Blob([new Uint8Array(makePng(320, 180, { seed }))], { type: 'image/png' }), 'f.png');
      const headers = { 'idempotency-key': randomUUID() };
      return (await created(await call('/v1/frame-submissions', { method: 'POST', headers, body: form }), 202))['id']!;
    },
    async submitVideo(clip: Buffer): Promise<string> {
      const body = JSON.stringify({
        agent_slug: AGENT,
        channel_slug: CHANNEL,
        media_type: 'video',
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: clip.length,
        date: '20260316',
        metadata: { title: VIDEO_TITLE },
      });
      const headers = { 'content-type': 'application/json', 'idempotency-key': randomUUID() };
      const upload = await created(await call('/v1/media-uploads', { method: 'POST', headers, body }), 201);
      expect(upload['upload_protocol']).toBe('basic');
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(clip)], { type: 'video/mp4' }), 'clip.mp4');
      const sent = await fetch(upload['upload_url']!, { method: 'POST', body: form });
      if (sent.status !== 201) throw new Error(`upload failed: ${sent.status} ${await sent.text()}`);
      return upload['submission_id']!;
    },
    async waitFor(id: string, status: string): Promise<Record<string, unknown>> {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const body = (await (await call(`/v1/frame-submissions/${id}`)).json()) as Record<string, unknown>;
        if (body['status'] === status) return body;
        if (body['status'] === 'failed' || Date.now() > deadline) {
          throw new Error(`${id} did not reach ${status}: ${JSON.stringify(body)}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}

describe('reviewer keyboard and video in chromium', () => {
  let dir: string;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let agent: ReturnType<typeof agentApi>;
  const ids: string[] = [];
  let videoId: string;

  const heading = (title: string) => page.getByRole('heading', { name: title, exact: true });
  const current = () =>
    page.getByRole('list', { name: 'Review queue' }).locator('[aria-current="true"]').getAttribute('aria-label');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'framedesk-keys-'));
    const clip = await readFile(makeClip(dir, 'clip.mp4', 1));
    stack = await startStack({ env: { WORKBENCH_DIST: workbenchDist() } });
    const created = await stack.cli(['reviewer', 'create', REVIEWER, '--password-stdin', '--role', 'admin'], PASSWORD);
    if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    agent = agentApi(stack, await stack.createAgent(AGENT, [CHANNEL]));
    // Submitted one after the other, so the queue's order (oldest first) is the order of the titles.
    for (const [i, title] of TITLES.entries()) ids.push(await agent.submitImage(title, i + 1));
    videoId = await agent.submitVideo(clip);
    await Promise.all([...ids, videoId].map((id) => agent.waitFor(id, 'needs_review')));

    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(stack.apiUrl + '/');
    await page.getByLabel('Email').fill(REVIEWER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('moves through the queue with j and k', async () => {
    await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}`);
    await heading(TITLES[0]!).waitFor();
    await page.keyboard.press('j');
    await heading(TITLES[1]!).waitFor();
    await page.keyboard.press('j');
    await heading(TITLES[2]!).waitFor();
    await page.keyboard.press('k');
    await heading(TITLES[1]!).waitFor();
    expect(new URL(page.url()).searchParams.get('selected')).toBe(ids[1]);
    expect(await current()).toBe(`${TITLES[1]} — ${CHANNEL}`);
    // k on the first frame stays there.
    await page.keyboard.press('k');
    await heading(TITLES[0]!).waitFor();
    await page.keyboard.press('k');
    await heading(TITLES[0]!).waitFor();
    expect(new URL(page.url()).searchParams.get('selected')).toBe(ids[0]);
  });

  it('rejects with r and a reason, which the agent then reads', async () => {
    await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}&selected=${ids[1]}`);
    await heading(TITLES[1]!).waitFor();
    await page.keyboard.press('r');
    const form = page.getByRole('form', { name: 'Rejection details' });
    await form.waitFor();
    // The reason popover has the focus, so the queue's shortcuts do not fire.
    await page.keyboard.press('j');
    await heading(TITLES[1]!).waitFor();
    await form.getByRole('button', { name: /Low quality/ }).click();
    await form.getByLabel('Note to the agent').fill('too dark to read');
    await form.getByRole('button', { name: 'Confirm rejection' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Rejected “${TITLES[1]}”` })
      .waitFor();
    const rejected = await agent.waitFor(ids[1]!, 'rejected');
    expect(rejected['review']).toMatchObject({ decision: 'rejected', reason: 'Low quality', note: 'too dark to read' });
    expect(await agent.waitFor(ids[0]!, 'needs_review')).toMatchObject({ review: null });
  });

  it('plays the processed video in the detail view', async () => {
    await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}&selected=${videoId}`);
    await heading(VIDEO_TITLE).waitFor();
    const video = page.getByLabel(`Video: ${VIDEO_TITLE}`);
    await video.waitFor();
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 20_000 })
      .toBeGreaterThan(0);
    const duration = await video.evaluate((v: HTMLVideoElement) => v.duration);
    expect(duration).toBeGreaterThan(0.5);
    expect(duration).toBeLessThan(2);
    const poster = await video.getAttribute('poster');
    expect(poster).toBeTruthy();
    expect((await page.request.get(new URL(poster!, stack.apiUrl).toString())).headers()['content-type']).toMatch(
      /^image\//,
    );
  });
});
