// Feedback that teaches the agent, in the browser: a reviewer draws and labels two regions (mouse and
// keyboard), rejects with a note, and the agent's GET has them; the agent's revision shows the version
// stack and the compare view with the earlier regions; a reviewer in no channel is told why the queue is empty.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng, type Stack, startStack } from '@framedesk/testing';
import { agentClient, axeViolations, workbenchDist, launchChromium, screenshot, signIn } from './support';

const PASSWORD = 'e2e-password-long-enough';
const REVIEWER = 'rita@example.com';
const NEWCOMER = 'nora@example.com';
const CHANNEL = 'feedback-news';
const AGENT = 'feedback-bot';

interface Region {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly label: string;
}

describe('feedback in the workbench: regions, note, revisions (chromium, real api + worker)', () => {
  const dist = workbenchDist();
  let stack: Stack;
  let browser: Browser;
  let key: string;
  let agent: ReturnType<typeof agentClient>;
  let page: Page;
  let rejected: string;

  /** A revision: the agent's own frame naming the rejected one in `revision_of`. */
  const submitRevision = async (title: string, revisionOf: string): Promise<string> => {
    const form = new FormData();
    const metadata = { agent_slug: AGENT, channel_slug: CHANNEL, date: '20260315', title, revision_of: revisionOf };
    form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
    const png = makePng(320, 180, { seed: 7 });
    form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'frame.png');
    const res = await fetch(`${stack.apiUrl}/v1/frame-submissions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
      body: form,
    });
    if (res.status !== 202) throw new Error(`revision failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const openItem = async (title: string) => {
    const item = page
      .getByRole('list', { name: 'Review queue' })
      .getByRole('listitem', { name: `${title} — ${CHANNEL}` });
    await item.waitFor({ timeout: 30_000 });
    await item.getByRole('button').first().click();
    await page.getByRole('heading', { name: title, exact: true }).waitFor();
  };

  beforeAll(async () => {
    stack = await startStack({ env: { WORKBENCH_DIST: dist } });
    key = await stack.createAgent(AGENT, [CHANNEL]);
    for (const args of [
      ['reviewer', 'create', REVIEWER, '--password-stdin', '--role', 'reviewer', '--channels', CHANNEL],
      ['reviewer', 'create', NEWCOMER, '--password-stdin'],
    ]) {
      const created = await stack.cli(args, PASSWORD);
      if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    }
    agent = agentClient(stack, key, AGENT, CHANNEL);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('sends two labelled regions, drawn with the mouse and the keyboard, and a note to the agent', async () => {
    rejected = await agent.submit('Harbour');
    await agent.waitFor(rejected, 'needs_review');
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await signIn(page, stack.apiUrl, REVIEWER, PASSWORD);
    await openItem('Harbour');

    // Mouse: "Draw regions", then a drag from 10%,20% to 40%,60% of the frame.
    await page.getByRole('button', { name: 'Draw regions' }).click();
    const frame = page.getByTestId('frame');
    await frame.locator('img').waitFor();
    const box = (await frame.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.4, { steps: 4 });
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.6, { steps: 4 });
    await page.mouse.up();
    await page.getByLabel('Label of region 1').fill('Blurred logo');

    // Keyboard: "Add region" puts a box in the middle; three steps right, two taller, labelled.
    await page.getByRole('button', { name: 'Add region' }).click();
    const second = page.getByRole('group', { name: /^Region 2/ });
    await second.focus();
    for (const k of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'Shift+ArrowDown', 'Shift+ArrowDown'])
      await page.keyboard.press(k);
    await page.getByLabel('Label of region 2').fill('Cut-off caption');
    expect(await frame.getByTestId('region-box').count()).toBe(2);

    // An internal note, for the reviewers only.
    await page.getByRole('textbox', { name: 'Internal note' }).fill('Third blurry one from this bot today');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page
      .getByRole('region', { name: 'Internal notes' })
      .getByText('Third blurry one from this bot today')
      .waitFor();

    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    const form = page.getByRole('form', { name: 'Rejection details' });
    await form.getByText('With 2 regions: Blurred logo, Cut-off caption').waitFor();
    await form.getByRole('button', { name: /Low quality/ }).click();
    await form.getByLabel('Note to the agent').fill('Re-render at full resolution, caption inside the frame');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'feedback-reject', true);
    await form.getByRole('button', { name: 'Confirm rejection' }).click();

    const view = (await agent.waitFor(rejected, 'rejected', 30_000)) as unknown as {
      review: { reason: string; note: string; regions: Region[]; decided_by: string };
    };
    expect(view.review).toMatchObject({
      reason: 'Low quality',
      note: 'Re-render at full resolution, caption inside the frame',
      decided_by: 'person',
    });
    const [drawn, keyed] = view.review.regions;
    expect(view.review.regions).toHaveLength(2);
    // The drag's pixels, as fractions of the frame: within a pixel of what was dragged.
    expect(drawn!.label).toBe('Blurred logo');
    for (const [got, want] of [
      [drawn!.x, 0.1],
      [drawn!.y, 0.2],
      [drawn!.width, 0.3],
      [drawn!.height, 0.4],
    ] as const)
      expect(Math.abs(got - want)).toBeLessThan(0.01);
    // The keyboard's box: exact.
    expect(keyed).toEqual({ x: 0.43, y: 0.4, width: 0.2, height: 0.22, label: 'Cut-off caption' });
    const body = JSON.stringify(view);
    expect(body).not.toContain(REVIEWER);
    expect(body).not.toContain('Third blurry one');
  });

  it('shows the revision with its version stack and the earlier frame beside it, regions drawn', async () => {
    const revision = await submitRevision('Harbour v2', rejected);
    await agent.waitFor(revision, 'needs_review');
    await openItem('Harbour v2');
    const versions = page.getByRole('region', { name: /^Versions/ });
    await versions.getByRole('listitem', { name: 'Version 1: Harbour — rejected' }).waitFor();
    await versions.getByRole('listitem', { name: 'Version 2: Harbour v2 — needs review (this frame)' }).waitFor();
    const compare = versions.getByRole('group', { name: 'Side-by-side comparison' });
    await compare.getByRole('img', { name: 'This frame' }).waitFor();
    await compare.getByRole('img', { name: 'Previous version Harbour' }).waitFor();
    expect(await compare.getByTestId('region-box').allTextContents()).toEqual(['Blurred logo', 'Cut-off caption']);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'feedback-versions', true);
  });

  it('tells a reviewer in no channel why the queue is empty', async () => {
    const newcomer = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(newcomer, stack.apiUrl, NEWCOMER, PASSWORD);
    await newcomer
      .getByText('You are not a member of any channel yet; an admin can add you on the People screen')
      .waitFor();
    expect(await newcomer.getByText('Nothing waits for review.').count()).toBe(0);
    expect(await axeViolations(newcomer)).toEqual([]);
  });
});
