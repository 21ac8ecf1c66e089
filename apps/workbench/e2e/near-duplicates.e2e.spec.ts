// Near-duplicates as reviewers see them: frames sent through the real agent API, fingerprinted by
// the real worker, searched in PostgreSQL, shown by the built workbench in chromium.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePicture, generatePicture, rerender } from '@framedesk/media';
import { launchChromium, type Stack, startStack } from '@framedesk/testing';
import { workbenchDist, pickTheme, root, screenshot as docScreenshot } from './support';

const SCREENSHOTS = join(root, 'test-results/screenshots');
const PASSWORD = 'e2e-password-long-enough';
const REVIEWER = 'carol@example.com';
const CHANNEL = 'dup-news';
const AGENT = 'dup-bot';

async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `near-duplicates-${name}.png`), fullPage: true });
}

describe('near-duplicates in the workbench (chromium, real api + worker)', () => {
  const dist = workbenchDist();
  let stack: Stack;
  let browser: Browser;
  let key: string;

  const submit = async (title: string, png: Buffer): Promise<string> => {
    const form = new FormData();
    const metadata = { agent_slug: AGENT, channel_slug: CHANNEL, date: '20260320', title, click_zones: [] };
    form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
    form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'frame.png');
    const res = await fetch(`${stack.apiUrl}/v1/frame-submissions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
      body: form,
    });
    if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const statusOf = async (id: string): Promise<string> => {
    const res = await fetch(`${stack.apiUrl}/v1/frame-submissions/${id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return ((await res.json()) as { status: string }).status;
  };
  const waitFor = async (id: string, status: string) => {
    await expect.poll(() => statusOf(id), { timeout: 60_000, interval: 250 }).toBe(status);
  };

  beforeAll(async () => {
    stack = await startStack({ env: { WORKBENCH_DIST: dist } });
    const created = await stack.cli(['reviewer', 'create', REVIEWER, '--password-stdin', '--role', 'admin'], PASSWORD);
    if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    key = await stack.createAgent(AGENT, [CHANNEL]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('flags a re-rendered, brighter frame as looking like the original, and not an unrelated one', async () => {
    const picture = generatePicture(42, 320, 240);
    const original = await submit('Lighthouse', await encodePicture(picture));
    await waitFor(original, 'needs_review');
    const unrelated = await submit('Market square', await encodePicture(generatePicture(4242, 320, 240)));
    const again = await submit('Lighthouse again', await rerender(picture, 0.6, 1.08));
    await waitFor(unrelated, 'needs_review');
    await waitFor(again, 'needs_review');

    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(`${stack.apiUrl}/`);
    await page.getByLabel('Email').fill(REVIEWER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const queue = page.getByRole('list', { name: 'Review queue' });
    const item = (title: string) => queue.getByRole('listitem', { name: `${title} — ${CHANNEL}` });
    await item('Lighthouse again').waitFor({ timeout: 20_000 });

    // The queue: the copy looks like one earlier frame; the original and the unrelated frame do not.
    await item('Lighthouse again').getByLabel('Looks like 1 earlier frame').waitFor();
    expect(
      await item('Lighthouse')
        .getByText(/Looks like/)
        .count(),
    ).toBe(0);
    expect(
      await item('Market square')
        .getByText(/Looks like/)
        .count(),
    ).toBe(0);

    // The unrelated frame's detail lists no similar frames.
    await item('Market square').getByRole('button').click();
    await page.getByRole('heading', { name: 'Market square' }).waitFor();
    expect(await page.getByRole('region', { name: 'Similar earlier frames' }).count()).toBe(0);
    await screenshot(page, 'unrelated');

    // The copy's detail lists the original with its status; compare them side by side.
    await item('Lighthouse again').getByRole('button').click();
    await page.getByRole('heading', { name: 'Lighthouse again' }).waitFor();
    const similar = page.getByRole('region', { name: 'Similar earlier frames' });
    const match = similar.getByRole('listitem', { name: 'Lighthouse — needs review' });
    await match.waitFor();
    expect(await match.textContent()).toMatch(/distance \d+|identical/);
    await match.getByRole('button', { name: 'Compare' }).click();
    const compare = page.getByRole('group', { name: 'Side-by-side comparison' });
    await compare.getByRole('img', { name: 'This frame' }).waitFor();
    await compare.getByRole('img', { name: 'Earlier frame Lighthouse' }).waitFor();
    await screenshot(page, 'compare');
    await docScreenshot(page, 'compare', true);
    await pickTheme(page, 'Dark');
    await docScreenshot(page, 'dark-compare', true);
    await pickTheme(page, 'System theme');

    // One key press rejects it as a duplicate of the closest earlier frame, recorded in the event.
    await page.keyboard.press('d');
    await waitFor(again, 'rejected');
    const db = new pg.Client({ connectionString: stack.database.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ reason: string; data: { duplicate_of?: string } }>(
        "SELECT reason, data FROM submission_events WHERE submission_id = $1 AND to_status = 'rejected'",
        [again],
      );
      expect(rows).toEqual([{ reason: 'Duplicate of an earlier frame', data: { duplicate_of: original } }]);
    } finally {
      await db.end();
    }
  });
});
