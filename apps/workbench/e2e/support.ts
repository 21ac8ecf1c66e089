// Helpers of the workbench's browser tests: the run's build, chromium, the agent's side, axe, screenshots.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { inject } from 'vitest';
import sharp from 'sharp';
import { makePng, type Stack } from '@framedesk/testing';

export { launchChromium } from '@framedesk/testing';

export const root = resolve(import.meta.dirname, '../../..');
const SCREENSHOTS = join(root, 'test-results/screenshots');
/** The screenshots docs/workbench.md shows: refreshed by an e2e run with FRAMEDESK_DOC_SCREENSHOTS=1. */
const DOC_SCREENSHOTS = join(root, 'docs/images');
// eslint-disable-next-line no-restricted-properties -- a test-run switch, not a product setting.
const UPDATE_DOC_SCREENSHOTS = process.env['FRAMEDESK_DOC_SCREENSHOTS'] === '1';

/**
 * The run's production build of the workbench (made once by workbench-build.global.ts), served by
 * every stack as WORKBENCH_DIST. Shared: a test file never changes or removes it.
 */
export function workbenchDist(): string {
  return inject('workbenchDist');
}

/**
 * A full-page screenshot under test-results/; with `doc` (and FRAMEDESK_DOC_SCREENSHOTS=1), also
 * a small one of the viewport (at most 800 px wide, 256-colour PNG) as
 * docs/images/workbench-<name>.png, which docs/workbench.md shows.
 */
export async function screenshot(page: Page, name: string, doc = false): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `workbench-${name}.png`), fullPage: true });
  if (!doc || !UPDATE_DOC_SCREENSHOTS) return;
  await mkdir(DOC_SCREENSHOTS, { recursive: true });
  const shot = await page.screenshot({ fullPage: false, scale: 'css' });
  await sharp(shot)
    .resize({ width: 800, withoutEnlargement: true })
    .png({ palette: true, compressionLevel: 9 })
    .toFile(join(DOC_SCREENSHOTS, `workbench-${name}.png`));
}

const AXE_SOURCE = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: { readonly target: unknown[] }[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA rules). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<unknown> } }).axe;
    const result = (await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    })) as { violations: AxeViolation[] };
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(baseUrl + '/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

export async function expectText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 10_000 });
}

export interface ZoneInput {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly url: string;
  readonly label?: string;
}

export interface AgentView {
  readonly id: string;
  readonly status: string;
  readonly variants: Record<string, string>;
  readonly review?: { decision: string; reason: string | null } | null;
  readonly failure?: { code: string } | null;
}

/** The agent's side: POST /v1/frame-submissions (or media-uploads) and GET it, with a Bearer key. */
export function agentClient(stack: Stack, key: string, agent: string, channel: string) {
  const headers = { authorization: `Bearer ${key}` };
  return {
    async submit(
      title: string,
      zones: ZoneInput[] = [],
      seed = 1,
      png: Buffer = makePng(320, 180, { seed }),
      channelSlug = channel,
    ): Promise<string> {
      const form = new FormData();
      const metadata = {
        agent_slug: agent,
        channel_slug: channelSlug,
        date: '20260315',
        title,
        caption: `Caption of ${title}`,
        click_zones: zones,
      };
      form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
      form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'frame.png');
      const res = await fetch(`${stack.apiUrl}/v1/frame-submissions`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: form,
      });
      if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    },
    /** A video upload session (the bytes go to the provider): the submission and its upload address. */
    async submitVideo(
      title: string,
      byteSize = 1000,
      metadata: Record<string, string> = { title },
    ): Promise<{ id: string; uploadUrl: string }> {
      const res = await fetch(`${stack.apiUrl}/v1/media-uploads`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({
          agent_slug: agent,
          channel_slug: channel,
          media_type: 'video',
          filename: 'clip.mp4',
          content_type: 'video/mp4',
          byte_size: byteSize,
          date: '20260316',
          metadata,
        }),
      });
      if (res.status !== 201 && res.status !== 202)
        throw new Error(`media upload failed: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { submission_id: string; upload_url: string };
      return { id: body.submission_id, uploadUrl: body.upload_url };
    },
    /** A clip sent whole, as an agent sends it: the session, then its bytes by the basic upload. */
    async uploadVideo(clip: Buffer, metadata: Record<string, string>): Promise<string> {
      const { id, uploadUrl } = await this.submitVideo(metadata['title'] ?? 'clip', clip.length, metadata);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(clip)], { type: 'video/mp4' }), 'clip.mp4');
      const sent = await fetch(uploadUrl, { method: 'POST', body: form });
      if (sent.status !== 201) throw new Error(`upload failed: ${sent.status} ${await sent.text()}`);
      return id;
    },
    async get(id: string): Promise<AgentView> {
      const res = await fetch(`${stack.apiUrl}/v1/frame-submissions/${id}`, { headers });
      if (res.status !== 200) throw new Error(`GET ${id} failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as AgentView;
    },
    async waitFor(id: string, status: string, timeoutMs = 60_000): Promise<AgentView> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const body = await this.get(id);
        if (body.status === status) return body;
        if (Date.now() > deadline) throw new Error(`${id} is ${body.status}, not ${status}, after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** Picks `option` in the design system's Select labelled `label` (a button that opens a listbox). */
export async function choose(page: Page, label: string, option: string): Promise<void> {
  const field = page.locator('.ui-field').filter({ has: page.getByText(label, { exact: true }) });
  await field.getByRole('button').first().click();
  // An option is named by its value, or "Name · value" (a channel whose name is not its slug).
  const name = new RegExp(`^(.* · )?${option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  await page.getByRole('listbox').getByRole('option', { name }).click();
  await page.getByRole('listbox').waitFor({ state: 'detached' });
}

interface ManifestChunk {
  readonly file: string;
  readonly isEntry?: boolean;
  readonly imports?: readonly string[];
  readonly dynamicImports?: readonly string[];
}

export interface JavaScriptBudget {
  /** Gzipped bytes a browser fetches to show each screen: the entry and its static imports, plus the screen's lazy chunk and its static imports. */
  readonly screens: Record<string, number>;
  /** Chunks a screen loads only when the reviewer reaches for them (the date picker), gzipped, on their own. */
  readonly onDemand: Record<string, number>;
  /** Every JavaScript file of the build, gzipped. */
  readonly all: number;
}

/** What the build (with `--manifest`) ships, per screen. */
export function javaScriptBudget(dist: string): JavaScriptBudget {
  const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const gz = new Map<string, number>();
  const size = (file: string) => {
    if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(join(dist, file))).length);
    return gz.get(file)!;
  };
  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const next of manifest[key]!.imports ?? []) closure(next, seen);
    return seen;
  };
  const total = (keys: Iterable<string>) =>
    [...new Set([...keys].map((k) => manifest[k]!.file))]
      .filter((f) => f.endsWith('.js'))
      .reduce((sum, f) => sum + size(f), 0);
  const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry)!;
  const entry = closure(entryKey);
  const screens: Record<string, number> = { 'sign-in (entry)': total(entry) };
  // Screens are what the first page's code (the entry or a chunk it imports) loads lazily.
  for (const lazy of [...entry].flatMap((key) => manifest[key]!.dynamicImports ?? []))
    screens[lazy] = total(closure(lazy, new Set(entry)));
  const onDemand: Record<string, number> = {};
  for (const key of Object.keys(manifest))
    for (const lazy of entry.has(key) ? [] : (manifest[key]!.dynamicImports ?? []))
      onDemand[lazy] = total([...closure(lazy)].filter((k) => !entry.has(k) && !closure(key).has(k)));
  return { screens, onDemand, all: total(Object.keys(manifest)) };
}

/** The reviewer's theme switch, as a reviewer uses it. */
export async function pickTheme(page: Page, theme: 'Light' | 'Dark' | 'System theme'): Promise<void> {
  await choose(page, 'Theme', theme);
}
