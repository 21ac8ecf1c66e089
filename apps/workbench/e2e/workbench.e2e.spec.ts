// The workbench as reviewers use it: built with vite, served by the real api, driven in chromium,
// with frames sent through the real agent API and processed by the real worker. Videos go to a
// local fake of Cloudflare Stream (the one third party we cannot reach).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng, makePngBomb, type Stack, startStack } from '@framedesk/testing';
import { type FakeCloudflare, signWebhook, startFakeCloudflare } from '@framedesk/video-provider';
import {
  agentClient,
  axeViolations,
  workbenchDist,
  expectText,
  launchChromium,
  screenshot,
  choose,
  signIn,
} from './support';

const PASSWORD = 'e2e-password-long-enough';
const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';
const CHANNEL = 'e2e-news';
const AGENT = 'e2e-bot';
const WEBHOOK_SECRET = 'whsec_e2e';
const MANY = Array.from({ length: 30 }, (_, i) => `chan-${String(i + 1).padStart(2, '0')}`);

describe('reviewer workbench in chromium', () => {
  const dist = workbenchDist();
  let stack: Stack;
  let fake: FakeCloudflare;
  let browser: Browser;
  let agent: ReturnType<typeof agentClient>;
  const contexts: BrowserContext[] = [];

  const newPage = async (width = 1400, height = 900): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width, height } });
    contexts.push(context);
    return context.newPage();
  };
  let aliceContext: BrowserContext | undefined;
  /** A page of Alice's one signed-in browser context (earlier pages closed, so none holds a claim). */
  const alicePage = async (): Promise<Page> => {
    if (!aliceContext) {
      const page = await newPage();
      aliceContext = page.context();
      await signIn(page, stack.apiUrl, ALICE, PASSWORD);
      return page;
    }
    for (const open of aliceContext.pages()) await open.close();
    return aliceContext.newPage();
  };
  const queue = (page: Page) => page.getByRole('list', { name: 'Review queue' });
  const queueItem = (page: Page, title: string) => queue(page).getByRole('listitem', { name: `${title} — ${CHANNEL}` });
  const expectAxeClean = async (page: Page) => expect(await axeViolations(page)).toEqual([]);
  /** In order, so the queue (oldest first) lists them in this order. */
  const submitAll = async (titles: string[], seed: number) => {
    const ids: string[] = [];
    for (const [i, title] of titles.entries()) ids.push(await agent.submit(title, [], seed + i));
    await Promise.all(ids.map((id) => agent.waitFor(id, 'needs_review')));
    return ids;
  };

  beforeAll(async () => {
    fake = await startFakeCloudflare();
    stack = await startStack({
      env: {
        WORKBENCH_DIST: dist,
        LOGIN_ATTEMPTS_PER_15_MINUTES: '5',
        ...fake.settings(WEBHOOK_SECRET),
      },
    });
    for (const email of [ALICE, BOB]) {
      const created = await stack.cli(['reviewer', 'create', email, '--password-stdin', '--role', 'admin'], PASSWORD);
      if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    }
    agent = agentClient(stack, await stack.createAgent(AGENT, [CHANNEL]), AGENT, CHANNEL);
    await stack.createAgent('e2e-many', MANY);
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await stack?.stop();
    await fake?.close();
  });

  it('refuses a wrong password, then signs in with an HttpOnly, SameSite=Lax session cookie', async () => {
    const page = await newPage();
    await page.goto(stack.apiUrl + '/');
    await expectAxeClean(page);
    await screenshot(page, 'sign-in', true);
    await page.getByLabel('Email').fill(ALICE);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'The email or password is not right.');
    expect((await page.context().cookies()).find((c) => c.name === 'fd_session')).toBeUndefined();
    await expectAxeClean(page);

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'fd_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const header = `fd_session=${cookie!.value}`;
    expect((await fetch(`${stack.apiUrl}/v1/frame-submissions`, { headers: { cookie: header } })).status).toBe(401);
    expect(
      (await fetch(`${stack.apiUrl}/review/queue`, { headers: { authorization: 'Bearer fd_live_x' } })).status,
    ).toBe(401);
  });

  it('keeps the header one row with 30 channels, finds a channel by typing, and fits a phone in one column', async () => {
    const page = await alicePage();
    await page.goto(`${stack.apiUrl}/`);
    const header = page.locator('header.top');
    await page.getByRole('combobox', { name: 'Channel' }).click();
    const options = page.getByRole('listbox', { name: 'Channels' }).getByRole('option');
    await expect.poll(() => options.count(), { timeout: 10_000 }).toBe(32); // "All channels" and 31 channels
    expect((await header.boundingBox())!.height).toBeLessThanOrEqual(120);
    await page.getByRole('combobox', { name: 'Channel' }).fill('chan-17');
    await page.getByRole('option', { name: /chan-17/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('channel'), { timeout: 5_000 }).toBe('chan-17');
    expect((await header.boundingBox())!.height).toBeLessThanOrEqual(120);
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await expectAxeClean(page);
    await screenshot(page, 'key-map', true);
    await page.keyboard.press('Escape');

    const id = await agent.submit('Pocket frame', [], 11, makePng(64, 48, { seed: 11 }));
    await agent.waitFor(id, 'needs_review');
    const phone = page;
    await phone.setViewportSize({ width: 390, height: 844 });
    const noHorizontalScroll = () =>
      phone.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
    await phone.goto(`${stack.apiUrl}/?channel=${CHANNEL}`);
    await queueItem(phone, 'Pocket frame').waitFor();
    expect(await noHorizontalScroll()).toBe(true);
    await expectAxeClean(phone);
    await screenshot(phone, 'phone-queue', true);
    await queueItem(phone, 'Pocket frame').getByRole('button').click();
    await phone.getByRole('heading', { name: 'Pocket frame' }).waitFor();
    expect(await queue(phone).isVisible()).toBe(false);
    // A 64×48 frame is scaled up to the space, with hard pixels and the scale shown.
    await expectText(phone.locator('.scale'), '(fit)');
    expect(Number(/Scale (\d+)%/.exec((await phone.locator('.scale').textContent())!)![1])).toBeGreaterThan(100);
    expect(await noHorizontalScroll()).toBe(true);
    await screenshot(phone, 'phone-detail', true);
    await phone.getByRole('button', { name: '← Back to the queue' }).click();
    await queue(phone).waitFor();
  });

  it('shows a frame submitted while the queue is open within 2 s; z, c and p work on it; promoting puts it on the timeline', async () => {
    const page = await alicePage();
    await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}`);
    await page.locator('.queue-stats').waitFor(); // the queue (a screen loaded on demand) is open
    const id = await agent.submit('Harbour at dawn', [
      { x: 0.05, y: 0.1, width: 0.3, height: 0.3, url: 'https://example.com/boats', label: 'Boats' },
      { x: 0.6, y: 0.5, width: 0.3, height: 0.4, url: 'https://example.com/fish', label: 'Fish' },
    ]);
    await agent.waitFor(id, 'needs_review');
    // Live events, not polling (which runs only while the event stream is down, every 5 s).
    await queueItem(page, 'Harbour at dawn').waitFor({ timeout: 2_000 });
    await queueItem(page, 'Harbour at dawn').getByRole('button').click();
    await page.getByRole('heading', { name: 'Harbour at dawn' }).waitFor();
    const zones = page.getByTestId('click-zone');
    expect(await zones.count()).toBe(2);
    expect(await zones.nth(0).getAttribute('aria-label')).toBe('Boats: https://example.com/boats');
    const image = page.getByRole('img', { name: 'Harbour at dawn' });
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 15_000 })
      .toBeGreaterThan(0);
    const [frameBox, zoneBox] = [await image.boundingBox(), await zones.nth(0).boundingBox()];
    expect(zoneBox!.x).toBeGreaterThan(frameBox!.x);
    expect(zoneBox!.width).toBeCloseTo(frameBox!.width * 0.3, 0);
    await expectAxeClean(page);
    await screenshot(page, 'queue-detail', true);

    await page.keyboard.press('z');
    await expectText(page.locator('.scale'), 'Scale 100% (1:1)');
    await page.getByRole('region', { name: /Frame viewer/ }).waitFor();
    await page.keyboard.press('z');
    await expectText(page.locator('.scale'), '(fit)');
    await page.keyboard.press('c');
    await expect.poll(() => zones.count(), { timeout: 5_000 }).toBe(0);
    await page.keyboard.press('c');
    await expect.poll(() => zones.count(), { timeout: 5_000 }).toBe(2);

    await page.keyboard.press('p');
    await page.getByRole('status').filter({ hasText: 'Promoted “Harbour at dawn”' }).waitFor();
    expect((await agent.waitFor(id, 'promoted', 20_000)).review).toMatchObject({ decision: 'promoted' });

    await page.getByRole('link', { name: 'Timeline' }).click();
    const timeline = page.getByRole('list', { name: `Timeline of ${CHANNEL}` });
    await timeline.getByRole('listitem', { name: /Harbour at dawn/ }).waitFor();
    await expectAxeClean(page);
    await screenshot(page, 'timeline', true);
  });

  it('selects three frames (tick, shift-click, x), undoes the batch with u, then promotes all three for the agent', async () => {
    const ids = await submitAll(['Bulk one', 'Bulk two', 'Bulk three'], 21);
    const page = await alicePage();
    await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}`);
    await queueItem(page, 'Bulk three').waitFor();
    await page.getByRole('checkbox', { name: 'Select Bulk one' }).check();
    await page.getByRole('checkbox', { name: 'Select Bulk three' }).click({ modifiers: ['Shift'] });
    expect(await page.getByRole('checkbox', { name: 'Select Bulk two' }).isChecked()).toBe(true);
    // x on the frame on screen toggles it; j and k move that frame.
    await queueItem(page, 'Bulk two').getByRole('button').click();
    await page.keyboard.press('x');
    expect(await page.getByRole('checkbox', { name: 'Select Bulk two' }).isChecked()).toBe(false);
    await page.keyboard.press('k');
    await expect.poll(() => queueItem(page, 'Bulk one').getAttribute('aria-current'), { timeout: 5_000 }).toBe('true');
    await page.keyboard.press('j');
    await expect.poll(() => queueItem(page, 'Bulk two').getAttribute('aria-current'), { timeout: 5_000 }).toBe('true');
    await page.keyboard.press('x');
    await page.getByRole('button', { name: 'Promote selected (3)' }).click();
    await page.getByRole('status').filter({ hasText: 'Promoted 3 frames' }).waitFor();
    await page.keyboard.press('u');
    for (const title of ['Bulk one', 'Bulk two', 'Bulk three']) await queueItem(page, title).waitFor();
    expect((await agent.get(ids[0]!)).status).toBe('needs_review');

    await page.keyboard.press('g');
    await page.locator('ul.queue-grid').waitFor();
    await expectAxeClean(page);
    for (const title of ['Bulk one', 'Bulk two', 'Bulk three'])
      await page.getByRole('checkbox', { name: `Select ${title}` }).check();
    await screenshot(page, 'queue-grid', true);
    await page.getByRole('button', { name: 'Promote selected (3)' }).click();
    const results = page.getByRole('region', { name: 'Batch results' });
    await expectText(results, 'Bulk three: promoted');
    for (const id of ids)
      expect((await agent.waitFor(id, 'promoted', 20_000)).review).toMatchObject({ decision: 'promoted' });
    await page.keyboard.press('g');
    await page.locator('ul.queue-grid').waitFor({ state: 'detached' });
  });

  it('rejects a frame with r and a reason that the agent then reads', async () => {
    const page = await alicePage();
    const id = await agent.submit('Blurry street', [], 2);
    await agent.waitFor(id, 'needs_review');
    await page.goto(`${stack.apiUrl}/?selected=${id}`);
    await page.getByRole('heading', { name: 'Blurry street' }).waitFor();
    await page.locator('body').press('r');
    await page
      .getByRole('group', { name: 'Reasons' })
      .getByRole('button', { name: /Low quality/ })
      .click();
    await page.getByLabel('Note to the agent').fill('out of focus');
    await screenshot(page, 'reject-form');
    await page.getByRole('button', { name: 'Confirm rejection' }).click();
    const rejected = await agent.waitFor(id, 'rejected', 20_000);
    expect(rejected.review).toMatchObject({ decision: 'rejected', reason: 'Low quality', note: 'out of focus' });
  });

  it('lets one of two reviewers racing on a batch win each frame, and shows the other which frames it lost', async () => {
    const titles = ['Race one', 'Race two', 'Race three'];
    const ids = await submitAll(titles, 31);
    const [alice, bob] = [await alicePage(), await newPage()];
    await signIn(bob, stack.apiUrl, BOB, PASSWORD);
    for (const page of [alice, bob]) {
      // The grid claims nothing, so both reach the compare-and-set of every frame.
      await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}&view=grid`);
      for (const title of titles) await page.getByRole('checkbox', { name: `Select ${title}` }).check();
    }
    await Promise.all([alice, bob].map((page) => page.getByRole('button', { name: 'Promote selected (3)' }).click()));
    for (const id of ids) await agent.waitFor(id, 'promoted', 20_000);
    const outcomes = async (page: Page) => {
      const results = page.getByRole('region', { name: 'Batch results' });
      await results.waitFor({ timeout: 20_000 });
      return results.getByRole('listitem').allTextContents();
    };
    const all = [...(await outcomes(alice)), ...(await outcomes(bob))];
    expect(all.filter((t) => t.endsWith(': promoted')).length).toBe(3);
    expect(all.filter((t) => t.includes('Another reviewer decided this frame first')).length).toBe(3);
    await screenshot(alice, 'batch-race');
  });

  it('shows a Cloudflare video with the Stream thumbnail as poster and the Stream player; the agent gets both', async () => {
    const { id, uploadUrl } = await agent.submitVideo('Stream clip');
    const uid = /\/upload\/([0-9a-f]{32})/.exec(uploadUrl)![1]!;
    const ready = fake.readyVideo(uid, {
      duration: 4,
      width: 320,
      height: 180,
      thumbnail: makePng(320, 180, { seed: 41 }),
      thumbnailType: 'image/png',
    });
    const raw = JSON.stringify(ready);
    const notified = await fetch(`${stack.apiUrl}/provider-events/vendor-stream`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-signature': signWebhook(WEBHOOK_SECRET, raw, Math.floor(Date.now() / 1000)),
      },
      body: raw,
    });
    expect(notified.status).toBe(200);
    const view = await agent.waitFor(id, 'needs_review');
    expect(view.variants['playback']).toBe(ready.playback?.hls);
    expect(view.variants['poster']).toMatch(/\/media\//);

    const page = await alicePage();
    await page.goto(`${stack.apiUrl}/?selected=${id}`);
    const poster = page.getByRole('img', { name: 'Poster of Stream clip' });
    await expect
      .poll(() => poster.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 15_000 })
      .toBe(320);
    const player = page.frameLocator('iframe[title="Player: Stream clip"]');
    await player.locator('video[controls]').waitFor();
    await expectAxeClean(page);
    await screenshot(page, 'video', true);
  });

  it('filters failed frames by code and channel on the ops page and retries the selected ones', async () => {
    const id = await agent.submit('Pixel bomb', [], 4, makePngBomb());
    const failed = await agent.waitFor(id, 'failed');
    const page = await alicePage();
    await page.goto(`${stack.apiUrl}/`);
    await page.getByRole('link', { name: 'Ops' }).click();
    const table = page.getByRole('table', { name: 'Queue depths' });
    await table.waitFor();
    expect(await table.getByRole('rowheader', { name: 'image-processing' }).count()).toBe(1);
    const list = page.getByRole('list', { name: 'Recently failed' });
    const row = list.getByRole('listitem', { name: `Pixel bomb — ${failed.failure!.code}` });
    await row.waitFor();
    await choose(page, 'Failure code', failed.failure!.code);
    await choose(page, 'Failed in channel', CHANNEL);
    await row.waitFor();
    await choose(page, 'Failed in channel', 'chan-01');
    await list.waitFor({ state: 'detached' });
    await choose(page, 'Failed in channel', CHANNEL);
    await expectAxeClean(page);
    await screenshot(page, 'ops', true);
    await row.getByRole('checkbox', { name: 'Select Pixel bomb' }).check();
    await page.getByRole('button', { name: 'Retry selected (1)' }).click();
    const retried = async () => {
      const detail = await page.evaluate(async (sub) => (await fetch(`/review/submissions/${sub}`)).json(), id);
      return (detail as { events: { from: string | null; to: string | null; actor_type: string }[] }).events.filter(
        (e) => e.from === 'failed' && e.to === 'received' && e.actor_type === 'reviewer',
      ).length;
    };
    await expect.poll(retried, { timeout: 20_000 }).toBe(1);
    await agent.waitFor(id, 'failed', 30_000);
  });
});
