// The reviewer's video player in chromium, on a real clip the real worker measured and made a sprite
// of: hovering the timeline shows the sprite's frame, `.` steps one frame, and a rejection with a
// time range and a region drawn on the frame reaches the agent's GET exactly; then, on the agent's
// revision (a second real clip), an internal note with a time-coded item puts a marker on the
// timeline that seeks, and the compare view keeps the revision and the rejected version at the same
// time through a seek and a frame step (docs/video.md, "The player").
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMeasuredClip, type Stack, startStack } from '@framedesk/testing';
import { agentClient, axeViolations, workbenchDist, launchChromium, removeDir, signIn } from './support';

const PASSWORD = 'player-password-long-enough';
const REVIEWER = 'vera@example.com';
const AGENT = 'player-bot';
const CHANNEL = 'player-news';
const TITLE = 'Lighthouse clip';
const REVISION_TITLE = 'Lighthouse clip, take 2';

describe('video player in chromium (real api + worker)', () => {
  const dist = workbenchDist();
  let clipDir: string | undefined;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let key: string;
  let agent: ReturnType<typeof agentClient>;
  let id: string;
  let revisionClip: Buffer;

  beforeAll(async () => {
    clipDir = await mkdtemp(join(tmpdir(), 'framedesk-player-'));
    const clip = await readFile(makeMeasuredClip(clipDir, 'clip.mp4', 'pattern', 6, '320x240'));
    revisionClip = await readFile(makeMeasuredClip(clipDir, 'take-2.mp4', 'pattern', 5, '320x240'));
    stack = await startStack({ env: { WORKBENCH_DIST: dist } });
    key = await stack.createAgent(AGENT, [CHANNEL]);
    const created = await stack.cli(
      ['reviewer', 'create', REVIEWER, '--password-stdin', '--role', 'reviewer', '--channels', CHANNEL],
      PASSWORD,
    );
    if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    agent = agentClient(stack, key, AGENT, CHANNEL);
    id = await agent.uploadVideo(clip, { title: TITLE });
    await agent.waitFor(id, 'needs_review');
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await signIn(page, stack.apiUrl, REVIEWER, PASSWORD);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
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

    // `.` steps one frame of the clip's 10 fps (ffprobe's rate, recorded by the worker): 00:00.00 to 00:00.01.
    const time = page.getByTestId('player-time');
    await timeline.focus();
    await expect.poll(() => time.textContent()).toBe('00:00.00');
    await page.keyboard.press('.');
    await expect.poll(() => time.textContent()).toBe('00:00.01');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(0.1, 3);

    // A time range, a region drawn on the frame, a label.
    const items = page.getByRole('region', { name: 'Time-coded items', exact: true });
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
    await items.getByText(/00:01\.02–00:02\.05 Logo flickers \(region\)/).waitFor();

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

  describe("on the agent's revision", () => {
    let revision: string;
    /** Waits until the video has its metadata, so a seek lands. */
    const ready = (video: Locator) =>
      expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 20_000 }).toBeGreaterThan(0);
    const timeOf = (video: Locator) => video.evaluate((v: HTMLVideoElement) => v.currentTime);

    beforeAll(async () => {
      await agent.waitFor(id, 'rejected');
      revision = await agent.uploadVideo(revisionClip, { title: REVISION_TITLE, revision_of: id });
      await agent.waitFor(revision, 'needs_review');
      await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}&selected=${revision}`);
      await page.getByRole('heading', { name: REVISION_TITLE, exact: true }).waitFor();
    });

    it('an internal note carries a time-coded item whose marker on the timeline seeks to it', async () => {
      const video = page.getByLabel(`Video: ${REVISION_TITLE}`, { exact: true });
      await ready(video);
      const note = page.getByRole('form', { name: 'Add an internal note' });
      const items = note.getByRole('region', { name: 'Time-coded items of the note' });
      await items.getByRole('textbox', { name: 'Start (seconds)' }).fill('3');
      await items.getByRole('textbox', { name: 'Label of the item' }).fill('Fade starts early');
      await items.getByRole('button', { name: 'Add item' }).click();
      await items.getByText('00:03.00 Fade starts early').waitFor();
      await note.getByRole('textbox', { name: 'Internal note' }).fill('Compare the fade with take 1');
      const sent = page.waitForRequest((r) => r.url().endsWith(`/review/submissions/${revision}/notes`));
      await note.getByRole('button', { name: 'Add note' }).click();
      expect((await sent).postDataJSON()).toEqual({
        body: 'Compare the fade with take 1',
        moments: [{ at: 3, label: 'Fade starts early' }],
      });

      const marker = page
        .getByRole('group', { name: "Internal notes' time-coded items" })
        .getByRole('button', { name: 'Note: Fade starts early at 3.00 s' });
      await marker.waitFor();
      expect(await marker.textContent()).toBe('Fade starts early');
      await marker.click();
      await expect.poll(() => timeOf(video)).toBeCloseTo(3, 3);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('the compare view keeps the revision and the rejected version at the same time through a seek and a frame step', async () => {
      const pair = page.getByRole('group', { name: 'Videos in step' });
      await pair.waitFor({ timeout: 20_000 });
      const videos = pair.locator('video');
      await expect.poll(() => videos.count()).toBe(2);
      const [current, previous] = [videos.nth(0), videos.nth(1)];
      await ready(current);
      await ready(previous);
      const both = async () => [await timeOf(current), await timeOf(previous)];

      // The rejected version's item, on the one shared timeline: a click seeks both.
      await pair.getByRole('button', { name: 'Previous version: Logo flickers at 1.20 s to 2.50 s' }).click();
      await expect.poll(both).toEqual([1.2, 1.2]);
      // A frame step on the timeline steps both.
      await pair.getByRole('slider', { name: /Timeline/ }).focus();
      await page.keyboard.press('.');
      await expect.poll(async () => (await both()).map((t) => Math.round(t * 1000))).toEqual([1300, 1300]);
      const shown = pair.getByTestId('player-time');
      await expect.poll(() => shown.allTextContents()).toEqual(['00:01.03', '00:01.03']);
      // The other player drives the first too: a click plays both, K pauses both on one frame, `,` steps both.
      await previous.click();
      await page.keyboard.press('K');
      const inStep = async () => {
        const [a, b] = (await both()).map((t) => Math.round(t * 1000));
        return a === b ? a : `${a} ≠ ${b}`;
      };
      await expect.poll(inStep).toEqual(expect.any(Number));
      const paused = (await inStep()) as number;
      await page.keyboard.press(',');
      await expect.poll(inStep).toBe(Math.round(((Math.round((paused / 1000) * 10) - 1) / 10) * 1000));
      expect(await axeViolations(page)).toEqual([]);
    });
  });
});
