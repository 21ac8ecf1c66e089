// The Team screen in the browser (issue 37, point 6): an admin opens it for a day of seeded
// history and sees each reviewer's numbers (axe: no serious or critical violation).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '@framedesk/testing';
import { axeViolations, workbenchDist, expectText, launchChromium, screenshot, signIn } from './support';

const PASSWORD = 'correct horse battery';
const ADMIN = 'ada@example.com';
const RITA = 'rita@example.com';

/**
 * Rita: F1 40 s from her claim, F2 20 s from her claim (a sampled frame, agreeing with the policy),
 * F3 280 s from her previous decision: median 40 s. Ada approved F3 before Rita rejected it.
 */
const HISTORY: [
  frame: string,
  who: string,
  type: string,
  to: 'promoted' | 'rejected' | null,
  at: string,
  data?: object,
][] = [
  ['F1', RITA, 'claimed', null, '2026-10-01T10:00:00Z'],
  ['F1', RITA, 'transition', 'promoted', '2026-10-01T10:00:40Z'],
  ['F2', RITA, 'claimed', null, '2026-10-01T10:01:00Z'],
  ['F2', RITA, 'transition', 'rejected', '2026-10-01T10:01:20Z', { agrees_with_policy: true }],
  ['F3', ADMIN, 'approval', null, '2026-10-01T10:05:00Z'],
  ['F3', RITA, 'transition', 'rejected', '2026-10-01T10:06:00Z'],
];

describe('the Team screen', () => {
  const dist = workbenchDist();
  let stack: Stack;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    stack = await startStack({ workers: 0, env: { WORKBENCH_DIST: dist } });
    await stack.createAgent('team-bot', ['news']);
    for (const [email, role] of [
      [ADMIN, 'admin'],
      [RITA, 'reviewer'],
    ] as const) {
      const created = await stack.cli(
        [
          'reviewer',
          'create',
          email,
          '--password-stdin',
          '--role',
          role,
          ...(role === 'reviewer' ? ['--channels', 'news'] : []),
        ],
        PASSWORD,
      );
      if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    }
    const db = stack.database;
    for (const frame of ['F1', 'F2', 'F3'])
      await db.query(
        `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility, created_at, updated_at)
         SELECT $1, 'needs_review', 'image', a.id, c.id, '20261001', '{"title": "A frame"}', 'A frame', 'promotion_eligible',
                '2026-10-01T09:00:00Z', '2026-10-01T09:00:00Z'
           FROM agents a, channels c WHERE a.slug = 'team-bot' AND c.slug = 'news'`,
        [`sub_team${frame}`],
      );
    for (const [frame, who, type, to, at, data] of HISTORY)
      await db.query(
        `INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, actor_id, data, created_at)
         SELECT $1, $2, $3::"SubmissionStatus", $4::"SubmissionStatus", 'reviewer', r.id, $6::jsonb, $7
           FROM reviewers r WHERE r.email = $5`,
        [`sub_team${frame}`, type, to ? 'needs_review' : null, to, who, data ? JSON.stringify(data) : null, at],
      );
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("shows an admin each reviewer's numbers over the chosen days", async () => {
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await signIn(page, stack.apiUrl, ADMIN, PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await expectText(page.locator('.team-window'), 'Last 30 days');
    await page.goto(`${stack.apiUrl}/team?since=2026-10-01&until=2026-10-01`);
    await expectText(page.locator('.team-window'), 'Decisions from 2026-10-01 to 2026-10-01 (UTC)');
    const table = page.getByRole('table', { name: 'Reviewer numbers' });
    const cells = async (email: string) =>
      table.getByRole('row').filter({ hasText: email }).getByRole('cell').allInnerTexts();
    await expectText(table.getByRole('row'), RITA);
    expect(await cells(RITA)).toEqual(['3', '1', '2', '40 s', '0', '1 / 1 (100%)']);
    expect(await cells(ADMIN)).toEqual(['1', '1', '0', '—', '1', '—']);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'team');
  });
});
