// Teams in the browser: an admin signs in through a real OpenID Provider (oidc-provider on
// loopback), opens the People screen (axe), invites someone with a one-time link, gives them a
// second channel; the invited person chooses a password and sees only their channels.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack, startTestOidcProvider, type TestOidcProvider } from '@framedesk/testing';
import { axeViolations, workbenchDist, expectText, launchChromium, screenshot } from './support';

const ADMIN = 'ada@example.com';

describe('teams in the workbench: single sign-on and the People screen', () => {
  const dist = workbenchDist();
  let stack: Stack;
  let idp: TestOidcProvider;
  let browser: Browser;
  let admin: Page;

  beforeAll(async () => {
    idp = await startTestOidcProvider();
    stack = await startStack({
      workers: 0,
      env: {
        WORKBENCH_DIST: dist,
        OIDC_ISSUER_URL: idp.issuer,
        OIDC_CLIENT_ID: idp.clientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
        OIDC_PROVIDER_NAME: 'Test IdP',
      },
    });
    idp.register(`${stack.apiUrl}/review/oidc/callback`);
    // An SSO-only admin (no password), and two channels an agent posts to.
    const created = await stack.cli(['reviewer', 'create', ADMIN, '--role', 'admin']);
    if (created.code !== 0) throw new Error(`reviewer create failed: ${created.stderr}`);
    await stack.createAgent('desk-bot', ['news', 'sports']);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await idp?.close();
  });

  it('signs an admin in with "Sign in with Test IdP" through the provider, into the usual session', async () => {
    admin = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await admin.goto(`${stack.apiUrl}/?channel=news`);
    await admin.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    // The provider's own (development) login form, on its own origin.
    await admin.waitForURL((url) => url.origin === idp.issuer);
    await admin.locator('input[name=login]').fill(ADMIN);
    await admin.locator('input[name=password]').fill('anything');
    await admin.getByRole('button', { name: 'Sign-in' }).click();
    await admin.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(new URL(admin.url()).search).toBe('?channel=news');
    await expectText(admin.locator('.who'), ADMIN);
    const cookie = (await admin.context().cookies()).find((c) => c.name === 'fd_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect((await admin.context().cookies()).some((c) => c.name === 'fd_oidc')).toBe(false);
  });

  it('shows People to the admin (axe: no serious or critical violation), invites by email and edits channels', async () => {
    await admin.getByRole('link', { name: 'People' }).click();
    const table = admin.getByRole('table', { name: 'People' });
    await expectText(table.getByRole('row'), ADMIN);
    expect(await axeViolations(admin)).toEqual([]);

    await admin.getByLabel('Email').fill('vic@example.com');
    await admin.getByRole('group', { name: 'Channels' }).getByLabel('news').check();
    await admin.getByRole('button', { name: 'Invite' }).click();
    const link = admin.getByLabel(/One-time sign-in link for vic@example.com/);
    await link.waitFor();
    const url = await link.inputValue();
    expect(url.startsWith(`${stack.apiUrl}/welcome#invite=`)).toBe(true);
    const row = table.getByRole('row').filter({ hasText: 'vic@example.com' });
    await expectText(row, 'news');
    await expectText(row, 'Never');
    expect(await axeViolations(admin)).toEqual([]);

    await admin.getByRole('button', { name: 'Edit channels of vic@example.com' }).click();
    await admin.getByRole('group', { name: 'Channels of vic@example.com' }).getByLabel('sports').check();
    expect(await axeViolations(admin)).toEqual([]);
    await screenshot(admin, 'people', true);
    await admin.getByRole('button', { name: 'Save channels' }).click();
    await expectText(row, 'news, sports');

    // The invited person: the link chooses a password and signs in; only their channels, no ops.
    const vic = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await vic.goto(url);
    await expectText(vic.getByRole('form', { name: 'Choose a password' }), 'vic@example.com');
    await vic.getByLabel('Password', { exact: true }).fill('a long password for vic');
    await vic.getByLabel('The same password again').fill('a long password for vic');
    await vic.getByRole('button', { name: 'Set password and sign in' }).click();
    await vic.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await vic.getByRole('link', { name: 'People' }).count()).toBe(0);
    expect(await vic.getByRole('link', { name: 'Ops' }).count()).toBe(0);
    await expectText(row, 'Reviewer');

    // Disabled by the admin: her next request is refused and she is back at the sign-in page.
    await admin.getByRole('button', { name: 'Disable vic@example.com' }).click();
    await expectText(row, 'Disabled');
    await vic.reload();
    await vic.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    await vic.context().close();
  });
});
