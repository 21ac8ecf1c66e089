// The reviewer's video player in chromium, on a real clip the real worker measured and made a sprite
// of: hovering the timeline shows the sprite's frame, `.` steps one frame, and a rejection with a
// time range and a region drawn on the frame reaches the agent's GET exactly (docs/video.md, "The player").
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMeasuredClip, type Stack, startStack } from '@framedesk/testing';
import { agentClient, axeViolations, buildWorkbench, launchChromium, removeDir, signIn } from './support';

const PASSWORD = 'player-password-long-enough';
const REVIEWER = 'vera@example.com';
const AGENT = 'player-bot';
const CHANNEL = 'player-news';
const TITLE = 'Lighthouse clip';

describe('video player in chromium (real api + worker)', () => {
  let dist: string | undefined;
  let clipDir: string | undefined;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let key: string;
  let agent: ReturnType<typeof agentClient>;
  let id: string;

  /** The clip through the agent API's basic upload, as an agent sends it. */
  const submitClip = async (clip: Buffer): Promise<string> => {
    const headers = { authorization: `Bearer ${key}` };
    const res = await fetch(`${stack.apiUrl}/v1/media-uploads`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({
        agent_slug: AGENT,
        channel_slug: CHANNEL,
        media_type: 'video',
        filename: 'clip.mp4',
        content_type: 'video/mp4',
        byte_size: clip.length,
        date: '20260316',
        metadata: { title: TITLE },
      }),
    });
    if (res.status !== 201) throw new Error(`media upload failed: ${res.status} ${await res.text()}`);
    const upload = (await res.json()) as { submission_id: string; upload_url: string };
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(clip)], { type: 'video/mp4' }), 'clip.mp4');
    const sent = await fetch(upload.upload_url, { method: 'POST', body: form });
    if (sent.status !== 201) throw new Error(`upload failed: ${sent.status} ${await sent.text()}`);
    return upload.submission_id;
  };

  beforeAll(async () => {
    dist = await buildWorkbench();
    clipDir = await mkdtemp(join(tmpdir(), 'framedesk-player-'));
    const clip = await readFile(makeMeasuredClip(clipDir, 'clip.mp4', 'pattern', 6, '320x240'));
    stack = await startStack({ env: { WORKBENCH_DIST: dist } });
    key = await stack.createAgent(AGENT, [CHANNEL]);
    const created = await stack.cli(
      ['reviewer', 'create', REVIEWER, '--password-stdin', '--role', 'reviewer', '--channels', CHANNEL],
      PASSWORD,
    );
    if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    agent = agentClient(stack, key, AGENT, CHANNEL);
    id = await submitClip(clip);
    await agent.waitFor(id, 'needs_review');
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await signIn(page, stack.apiUrl, REVIEWER, PASSWORD);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await removeDir(dist);
    await removeDir(clipDir);
  });

  it("scrubs with the sprite, steps a frame with '.', and rejects with a time range and a region the agent reads exactly", async () => {
    await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}&selected=${id}`);
    await page.getByRole('heading', { name: TITLE, exact: true }).waitFor();
    const video = page.getByLabel(`Video: ${TITLE}`);
    await video.waitFor();
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 20_000 })
      .toBeGreaterThan(0);

    // Hovering the timeline shows the sprite's frame for the time under the pointer.
    const timeline = page.getByRole('slider', { name: /Timeline/ });
    const track = (await timeline.boundingBox())!;
    const preview = page.getByTestId('sprite-preview');
    const look = () =>
      preview.evaluate((el: HTMLElement) => [getComputedStyle(el).backgroundImage, el.style.backgroundPosition]);
    await page.mouse.move(track.x + track.width * 0.05, track.y + track.height / 2);
    await preview.waitFor({ timeout: 20_000 });
    const [image, early] = await look();
    expect(image).toContain('sprite');
    await page.mouse.move(track.x + track.width * 0.9, track.y + track.height / 2);
    await expect.poll(async () => (await look())[1]).not.toBe(early);
    await page.mouse.move(track.x + track.width / 2, track.y - 200);

    // `.` steps one frame (25 fps assumed): from 00:00.00 to 00:00.01.
    const time = page.getByTestId('player-time');
    await timeline.focus();
    await expect.poll(() => time.textContent()).toBe('00:00.00');
    await page.keyboard.press('.');
    await expect.poll(() => time.textContent()).toBe('00:00.01');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(0.04, 3);

    // A time range, a region drawn on the frame, a label.
    const items = page.getByRole('region', { name: 'Time-coded items' });
    await items.getByRole('textbox', { name: 'Start (seconds)' }).fill('1.2');
    await items.getByRole('textbox', { name: 'End (seconds, optional)' }).fill('2.5');
    await items.getByRole('textbox', { name: 'Label of the item' }).fill('Logo flickers');
    await page.getByRole('button', { name: 'Draw a region on this frame' }).click();
    const frame = (await video.boundingBox())!;
    await page.mouse.move(frame.x + frame.width * 0.25, frame.y + frame.height * 0.25);
    await page.mouse.down();
    await page.mouse.move(frame.x + frame.width * 0.5, frame.y + frame.height * 0.5, { steps: 5 });
    await page.mouse.move(frame.x + frame.width * 0.75, frame.y + frame.height * 0.75, { steps: 5 });
    await page.mouse.up();
    await page.getByTestId('region-box').first().waitFor();
    await items.getByText('With the region drawn on the frame.').waitFor();
    await items.getByRole('button', { name: 'Add item' }).click();
    await items.getByText(/00:01\.05–00:02\.13 Logo flickers \(region\)/).waitFor();

    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    const form = page.getByRole('form', { name: 'Rejection details' });
    await form.getByText('With 1 time-coded item').waitFor();
    await form.getByRole('button', { name: /Low quality/ }).click();
    const sent = page.waitForRequest((r) => r.url().endsWith(`/review/submissions/${id}/decision`));
    await form.getByRole('button', { name: 'Confirm rejection' }).click();
    const body = (await sent).postDataJSON() as { moments: unknown[] };
    expect(body.moments).toHaveLength(1);
    expect(body.moments[0]).toMatchObject({ start: 1.2, end: 2.5, label: 'Logo flickers' });
    const region = (body.moments[0] as { region: Record<string, number> }).region;
    for (const [k, v] of Object.entries({ x: 0.25, y: 0.25, width: 0.5, height: 0.5 }))
      expect(region[k]).toBeCloseTo(v, 1);

    const rejected = await agent.waitFor(id, 'rejected');
    expect((rejected as unknown as { review: { moments: unknown[] } }).review.moments).toEqual(body.moments);
  });
});
