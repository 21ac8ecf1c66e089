// Review policies in the browser (issue 36): an admin writes a rule on the Policies screen, sees its
// compile error inline, fixes it, simulates over seeded history and saves; the real worker then
// routes a frame with `approvals: 2`, and after the admin's promote a reviewer sees "1 of 2" and
// the rule's name on it, and why it is there. An automatic rejection's history names its rule.
// axe: no serious or critical violation on the Policies screen and on the frame.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type Stack, startStack } from '@framedesk/testing';
import {
  agentClient,
  axeViolations,
  workbenchDist,
  choose,
  expectText,
  launchChromium,
  screenshot,
  signIn,
} from './support';

const PASSWORD = 'correct horse battery';
const ADMIN = 'ada@example.com';
const RITA = 'rita@example.com';
const CHANNEL = 'policy-news';
const AGENT = 'policy-bot';

const TWO_EYES = { name: 'two-eyes', action: 'review', approvals: 2, priority: 'high' };
const TOO_SMALL = {
  name: 'too-small',
  when: 'frame.metadata.title == "Too small"',
  action: 'reject',
  reason: 'Low quality',
};
const policyText = (when: string) => JSON.stringify({ rules: [TOO_SMALL, { ...TWO_EYES, when }] }, null, 2);

/** Frames of the agent people decided (2 promoted, 1 rejected), which Simulate replays. */
async function seedHistory(stack: Stack): Promise<void> {
  for (const [id, status] of [
    ['sub_polhist1', 'promoted'],
    ['sub_polhist2', 'promoted'],
    ['sub_polhist3', 'rejected'],
  ] as const)
    await stack.database.query(
      `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility,
                                reviewer_id, created_at, updated_at)
       SELECT $1, $2::"SubmissionStatus", 'image', a.id, c.id, '20261101', '{"title": "Earlier"}', 'Earlier',
              'promotion_eligible', r.id, now() - interval '2 days', now() - interval '2 days'
         FROM agents a, channels c, reviewers r WHERE a.slug = $3 AND c.slug = $4 AND r.email = $5`,
      [id, status, AGENT, CHANNEL, ADMIN],
    );
}

describe('the Policies screen and a routed frame', () => {
  const dist = workbenchDist();
  let stack: Stack;
  let browser: Browser;
  let agent: ReturnType<typeof agentClient>;

  beforeAll(async () => {
    stack = await startStack({ env: { WORKBENCH_DIST: dist } });
    agent = agentClient(stack, await stack.createAgent(AGENT, [CHANNEL]), AGENT, CHANNEL);
    for (const [email, role] of [
      [ADMIN, 'admin'],
      [RITA, 'reviewer'],
    ] as const) {
      const extra = role === 'reviewer' ? ['--channels', CHANNEL] : [];
      const created = await stack.cli(
        ['reviewer', 'create', email, '--password-stdin', '--role', role, ...extra],
        PASSWORD,
      );
      if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    }
    await seedHistory(stack);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const newPage = async (): Promise<Page> =>
    (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();

  it('an admin writes a rule, sees its compile error inline, simulates and saves', async () => {
    const page = await newPage();
    await signIn(page, stack.apiUrl, ADMIN, PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('heading', { name: 'Policies', exact: true }).waitFor();
    await choose(page, 'Channel', CHANNEL);
    await expectText(page.locator('main'), 'No policy: every processed frame follows');

    const editor = page.getByLabel('Policy (JSON)');
    await editor.fill(policyText(`frame.agent == "${AGENT}" &&`));
    const problems = page.getByRole('list', { name: 'Problems' });
    await expectText(problems.getByRole('listitem'), 'Rule 2 “two-eyes” (when, line 1 column');
    expect(await problems.getByRole('listitem').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    expect(await editor.getAttribute('aria-invalid')).toBe('true');

    await editor.fill(policyText(`frame.agent == "${AGENT}"`));
    await expectText(page.locator('main'), 'The policy compiles.');
    await choose(page, 'Since', 'Last 90 days');
    await page.getByRole('button', { name: 'Simulate' }).click();
    const table = page.getByRole('table', { name: 'Simulation' });
    await table.waitFor();
    const cells = (rule: string) => table.getByRole('row').filter({ hasText: rule }).getByRole('cell').allInnerTexts();
    expect(await cells('two-eyes')).toEqual(['send to people', '3', '2', '1', '—', '—']);
    expect(await cells('too-small')).toEqual(['reject', '0', '0', '0', '0', '0']);
    expect(await cells('No rule matched')).toEqual(['leave to people', '0', '0', '0', '—', '—']);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'policies', true);

    await page.getByRole('button', { name: 'Save' }).click();
    await expectText(page.locator('body'), `Policy of ${CHANNEL} saved: 2 rule(s)`);
    const inForce = page.getByRole('table', { name: 'Rules in force' });
    await expectText(inForce.getByRole('row'), 'two-eyes');
    await expectText(page.locator('main'), `by workbench:${ADMIN}`);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('the worker routes a frame with two approvals; after one promote a reviewer sees "1 of 2" and the rule', async () => {
    const id = await agent.submit('Needs two');
    await agent.waitFor(id, 'needs_review');
    const ada = new ReviewerClient(stack.apiUrl);
    expect((await ada.login(ADMIN, PASSWORD)).status).toBe(201);
    const first = await ada.call('POST', `/review/submissions/${id}/decision`, { decision: 'promote' });
    expect(await first.json()).toMatchObject({ status: 'needs_review', approvals: { required: 2, approved: 1 } });

    const page = await newPage();
    await signIn(page, stack.apiUrl, RITA, PASSWORD);
    const row = page
      .getByRole('list', { name: 'Review queue' })
      .getByRole('listitem', { name: `Needs two — ${CHANNEL}` });
    await row.waitFor({ timeout: 30_000 });
    await expectText(row, '1 of 2 approvals');
    await expectText(row, 'rule two-eyes');
    await expectText(row, 'high priority');
    await row.getByRole('button').first().click();
    await page.getByRole('heading', { name: 'Needs two', exact: true }).waitFor();
    const why = page.getByRole('region', { name: 'Why here' });
    await expectText(why, 'Rule “two-eyes” matched: it sends the frame to people.');
    await expectText(why, '1 of 2 approvals');
    await expectText(why, 'Luminance');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'why-here', true);
  });

  it("an automatic rejection's history names its rule", async () => {
    const id = await agent.submit('Too small', [], 3);
    expect((await agent.waitFor(id, 'rejected')).review).toMatchObject({ reason: 'Low quality' });
    const page = await newPage();
    await signIn(page, stack.apiUrl, RITA, PASSWORD);
    await page.goto(`${stack.apiUrl}/?channel=${CHANNEL}&selected=${id}`);
    const history = page.getByRole('region', { name: 'History' });
    await expectText(history.getByRole('listitem'), 'rule “too-small”');
    await expectText(page.getByRole('region', { name: 'Why here' }), 'Rule “too-small” matched: reject (Low quality).');
  });
});
