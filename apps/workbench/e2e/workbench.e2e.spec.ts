// The workbench as reviewers use it: built with vite, served by the real api, driven in chromium,
// with frames sent through the real agent API and processed by the real worker.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng, makePngBomb, type Stack, startStack } from '@framedesk/testing';

const root = resolve(import.meta.dirname, '../../..');
const SCREENSHOTS = join(root, 'test-results/screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `vite build` of the workbench into a directory of this run's own. */
async function buildWorkbench(): Promise<string> {
  const dist = await mkdtemp(join(tmpdir(), 'framedesk-workbench-'));
  const result = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'apps/workbench/vite.config.ts',
      '--outDir',
      dist,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
  return dist;
}

async function launchChromium(): Promise<Browser> {
  // playwright-core gives every launch a fresh temporary profile (its own --user-data-dir).
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `workbench-${name}.png`), fullPage: true });
}

async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(baseUrl + '/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

interface ZoneInput {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly url: string;
  readonly label?: string;
}

/** The agent's side: POST /v1/frame-submissions and GET it, with a Bearer key. */
function agentClient(stack: Stack, key: string, agent: string, channel: string) {
  return {
    async submit(
      title: string,
      zones: ZoneInput[] = [],
      seed = 1,
      png: Buffer = makePng(320, 180, { seed }),
    ): Promise<string> {
      const form = new FormData();
      const metadata = {
        agent_slug: agent,
        channel_slug: channel,
        date: '20260315',
        title,
        caption: `Caption of ${title}`,
        click_zones: zones,
      };
      form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
      form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'frame.png');
      const res = await fetch(`${stack.apiUrl}/v1/frame-submissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
        body: form,
      });
      if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    },
    async get(id: string): Promise<{ status: string; review?: { decision: string; reason: string | null } | null }> {
      const res = await fetch(`${stack.apiUrl}/v1/frame-submissions/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status !== 200) throw new Error(`GET ${id} failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { status: string };
    },
    async waitFor(id: string, status: string, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const body = await this.get(id);
        if (body.status === status) return body;
        if (Date.now() > deadline) throw new Error(`${id} is ${body.status}, not ${status}, after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}

async function removeDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true });
}

const PASSWORD = 'e2e-password-long-enough';
const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';
const CHANNEL = 'e2e-news';
const AGENT = 'e2e-bot';

describe('reviewer workbench in chromium', () => {
  let dist: string | undefined;
  let stack: Stack;
  let browser: Browser;
  let agent: ReturnType<typeof agentClient>;
  const contexts: BrowserContext[] = [];

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    return context.newPage();
  };
  const queueItem = (page: Page, title: string) =>
    page.getByRole('list', { name: 'Review queue' }).getByRole('listitem', { name: `${title} — ${CHANNEL}` });

  beforeAll(async () => {
    dist = await buildWorkbench();
    stack = await startStack({ env: { WORKBENCH_DIST: dist, LOGIN_ATTEMPTS_PER_15_MINUTES: '5' } });
    for (const email of [ALICE, BOB]) {
      const created = await stack.cli(['reviewer', 'create', email, '--password-stdin'], PASSWORD);
      if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    }
    agent = agentClient(stack, await stack.createAgent(AGENT, [CHANNEL]), AGENT, CHANNEL);
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await stack?.stop();
    await removeDir(dist);
  });

  it('refuses a wrong password, then signs in with an HttpOnly, SameSite=Lax session cookie', async () => {
    const page = await newPage();
    await page.goto(stack.apiUrl + '/');
    await page.getByLabel('Email').fill(ALICE);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'The email or password is not right.');
    expect((await page.context().cookies()).find((c) => c.name === 'fd_session')).toBeUndefined();
    await screenshot(page, 'login-refused');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'fd_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });

    // The agent API does not take a reviewer's session, and the review API does not take agent keys.
    const header = `fd_session=${cookie!.value}`;
    expect((await fetch(`${stack.apiUrl}/v1/frame-submissions`, { headers: { cookie: header } })).status).toBe(401);
    expect(
      (await fetch(`${stack.apiUrl}/review/queue`, { headers: { authorization: 'Bearer fd_live_x' } })).status,
    ).toBe(401);
  });

  it('shows a frame sent through the agent API with its click zones; promoting it puts it on the timeline', async () => {
    const page = await newPage();
    await signIn(page, stack.apiUrl, ALICE, PASSWORD);
    const id = await agent.submit('Harbour at dawn', [
      { x: 0.05, y: 0.1, width: 0.3, height: 0.3, url: 'https://example.com/boats', label: 'Boats' },
      { x: 0.6, y: 0.5, width: 0.3, height: 0.4, url: 'https://example.com/fish', label: 'Fish' },
    ]);
    await agent.waitFor(id, 'needs_review');
    // The open queue refreshes by itself.
    await queueItem(page, 'Harbour at dawn').waitFor({ timeout: 20_000 });
    await page.getByRole('combobox', { name: 'Channel', exact: true }).selectOption(CHANNEL);
    await expect.poll(() => new URL(page.url()).searchParams.get('channel')).toBe(CHANNEL);
    await queueItem(page, 'Harbour at dawn').getByRole('button').click();
    await page.getByRole('heading', { name: 'Harbour at dawn' }).waitFor();
    const zones = page.getByTestId('click-zone');
    expect(await zones.count()).toBe(2);
    expect(await zones.nth(0).getAttribute('aria-label')).toBe('Boats: https://example.com/boats');
    expect(await zones.nth(1).getAttribute('title')).toBe('https://example.com/fish');
    const image = page.getByRole('img', { name: 'Harbour at dawn' });
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    const [frameBox, zoneBox] = [await image.boundingBox(), await zones.nth(0).boundingBox()];
    expect(zoneBox!.x).toBeGreaterThan(frameBox!.x);
    expect(zoneBox!.width).toBeCloseTo(frameBox!.width * 0.3, 0);
    await zones.nth(0).focus();
    await screenshot(page, 'queue-detail');

    await page.keyboard.press('p');
    await page.getByRole('status').filter({ hasText: 'Promoted “Harbour at dawn”' }).waitFor();
    await screenshot(page, 'undo-toast');
    const promoted = await agent.waitFor(id, 'promoted', 20_000);
    expect(promoted.review).toMatchObject({ decision: 'promoted' });

    await page.getByRole('link', { name: `Timeline: ${CHANNEL}` }).click();
    await page
      .getByRole('list', { name: `Timeline of ${CHANNEL}` })
      .getByRole('listitem', { name: /Harbour at dawn/ })
      .waitFor();
    await screenshot(page, 'timeline');
  });

  it('rejects a frame with a reason that the agent then reads', async () => {
    const page = await newPage();
    await signIn(page, stack.apiUrl, ALICE, PASSWORD);
    const id = await agent.submit('Blurry street', [], 2);
    await agent.waitFor(id, 'needs_review');
    await page.goto(`${stack.apiUrl}/?selected=${id}`);
    await page.getByRole('heading', { name: 'Blurry street' }).waitFor();
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByLabel('Reason').selectOption('Low quality');
    await page.getByLabel('Note').fill('out of focus');
    await screenshot(page, 'reject-form');
    await page.getByRole('button', { name: 'Confirm rejection' }).click();
    const rejected = await agent.waitFor(id, 'rejected', 20_000);
    expect(rejected.review).toMatchObject({ decision: 'rejected', reason: 'Low quality: out of focus' });
  });

  it('lets one of two reviewers racing on a frame win and tells the other', async () => {
    const id = await agent.submit('Contested frame', [], 3);
    await agent.waitFor(id, 'needs_review');
    const [alice, bob] = [await newPage(), await newPage()];
    await signIn(alice, stack.apiUrl, ALICE, PASSWORD);
    await signIn(bob, stack.apiUrl, BOB, PASSWORD);
    await alice.goto(`${stack.apiUrl}/?selected=${id}`);
    await alice.getByRole('heading', { name: 'Contested frame' }).waitFor();
    await bob.goto(`${stack.apiUrl}/?selected=${id}`);
    await bob.getByRole('heading', { name: 'Contested frame' }).waitFor();
    await Promise.all([
      alice.getByRole('button', { name: 'Promote' }).click(),
      bob.getByRole('button', { name: 'Promote' }).click(),
    ]);
    const told = async (page: Page) =>
      (await page
        .getByRole('alert')
        .filter({ hasText: /Another reviewer/ })
        .count()) > 0;
    await agent.waitFor(id, 'promoted', 20_000);
    // Exactly one wins. Which one depends on whose claim and decision reach the API first, which a
    // loaded machine may reorder, so the test asserts the property, not the winner.
    await expect
      .poll(async () => [await told(alice), await told(bob)].filter(Boolean).length, { timeout: 20_000 })
      .toBe(1);
    await screenshot((await told(alice)) ? alice : bob, 'race-loser');
  });

  it('shows queue depths and failed processing with its reason; Retry sends it through the pipeline again', async () => {
    const id = await agent.submit('Pixel bomb', [], 4, makePngBomb());
    const failed = (await agent.waitFor(id, 'failed')) as { failure?: { code: string } };
    const page = await newPage();
    await signIn(page, stack.apiUrl, ALICE, PASSWORD);
    await page.getByRole('link', { name: 'Ops' }).click();
    const table = page.getByRole('table', { name: 'Queue depths' });
    await table.waitFor();
    expect(await table.getByRole('rowheader', { name: 'image-processing' }).count()).toBe(1);
    const row = page
      .getByRole('list', { name: 'Recently failed' })
      .getByRole('listitem', { name: `Pixel bomb — ${failed.failure!.code}` });
    await row.waitFor();
    await screenshot(page, 'ops');
    await row.getByRole('button', { name: 'Retry Pixel bomb' }).click();
    // The retry is a reviewer's transition failed → received, then the worker runs it again (and fails it again).
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

async function expectText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 10_000 });
}
