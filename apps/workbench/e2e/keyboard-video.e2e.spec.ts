// The reviewer's keyboard and a video, in chromium: j/k move through the queue, r opens the
// rejection form whose reason the agent then reads, and a real clip made by ffmpeg, uploaded
// through the agent API and processed by the real worker, plays in the detail view.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, makeClip, type Stack, startStack } from '@framedesk/testing';
import { agentClient, workbenchDist } from './support';

const PASSWORD = 'keyboard-password-long-enough';
const REVIEWER = 'kim@example.com';
const AGENT = 'keys-bot';
const CHANNEL = 'keys-news';
const TITLES = ['First frame', 'Second frame', 'Third frame'];
const VIDEO_TITLE = 'Harbour clip';

describe('reviewer keyboard and video in chromium', () => {
  let dir: string;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let agent: ReturnType<typeof agentClient>;
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
    agent = agentClient(stack, await stack.createAgent(AGENT, [CHANNEL]), AGENT, CHANNEL);
    // Submitted one after the other, so the queue's order (oldest first) is the order of the titles.
    for (const [i, title] of TITLES.entries()) ids.push(await agent.submit(title, [], i + 1));
    videoId = await agent.uploadVideo(clip, { title: VIDEO_TITLE });
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
