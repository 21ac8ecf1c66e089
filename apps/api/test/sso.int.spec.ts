// Single sign-on with OpenID Connect against a real OpenID Provider (oidc-provider, in memory, on
// loopback): the code flow with PKCE, what is refused, auto-provisioning and PASSWORD_LOGIN=false.
import { accountsService, createReviewer, invitesService } from '@framedesk/access';
import { startTestOidcProvider, type TestOidcProvider } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';

let idp: TestOidcProvider;
const ssoEnv = () => ({
  OIDC_ISSUER_URL: idp.issuer,
  OIDC_CLIENT_ID: idp.clientId,
  OIDC_CLIENT_SECRET: idp.clientSecret,
  OIDC_PROVIDER_NAME: 'Test IdP',
});
/** A harness whose callback the provider knows. */
const harness = async (env: Record<string, string>) => {
  const h = await startReviewHarness({ ...ssoEnv(), ...env });
  idp.register(`${h.url}/review/oidc/callback`);
  return h;
};
const as = (login: string) => (url: string) => idp.authorize(url, login);
const refusal = (res: Response) => [
  res.status,
  res.headers.get('location'),
  res.headers.get('set-cookie')?.includes('fd_session=') && !res.headers.get('set-cookie')?.includes('fd_session=;'),
];

beforeAll(async () => {
  idp = await startTestOidcProvider();
});
afterAll(async () => idp?.close());

describe('single sign-on, passwords on, no auto-provisioning', () => {
  let h: ReviewHarness;

  beforeAll(async () => {
    h = await harness({});
    await h.seedReviewer('rita@example.com', PASSWORD, { role: 'reviewer', channels: ['news'] });
  });
  afterAll(async () => h?.close());

  it('offers "Sign in with <name>" beside the password form', async () => {
    expect(await (await fetch(`${h.url}/review/sign-in`)).json()).toEqual({
      password_login: true,
      sso: { name: 'Test IdP', url: '/review/oidc/login' },
    });
  });

  it('signs a known reviewer in (code flow, PKCE S256) into the same cookie session: CSRF, channels, revocation', async () => {
    const rita = new ReviewerClient(h.url);
    const start = await fetch(`${h.url}/review/oidc/login`, { redirect: 'manual' });
    const authorization = new URL(start.headers.get('location')!);
    expect(authorization.origin).toBe(idp.issuer);
    expect(
      Object.fromEntries(
        ['code_challenge_method', 'redirect_uri', 'client_id'].map((k) => [k, authorization.searchParams.get(k)]),
      ),
    ).toEqual({
      code_challenge_method: 'S256',
      redirect_uri: `${h.url}/review/oidc/callback`,
      client_id: idp.clientId,
    });
    expect(start.headers.getSetCookie()[0]).toMatch(/^fd_oidc=[^;]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);

    const { res } = await rita.ssoSignIn(as('rita@example.com'), { returnTo: '/?channel=news' });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/?channel=news']);
    const session = (await (await rita.call('GET', '/review/session')).json()) as {
      reviewer: { email: string; role: string };
    };
    expect(session.reviewer).toMatchObject({ email: 'rita@example.com', role: 'reviewer' });
    expect(
      (
        await rita.call(
          'POST',
          '/review/decisions',
          { ids: ['sub_0000000000000000000000'], decision: 'promote' },
          { 'x-csrf-token': 'wrong' },
        )
      ).status,
    ).toBe(403);
    expect(
      ((await (await rita.call('GET', '/review/channels')).json()) as { channels: unknown[] }).channels,
    ).toHaveLength(1);
    await accountsService(h.db, 'cli:test').revokeReviewerSessions('rita@example.com');
    expect((await rita.call('GET', '/review/session')).status).toBe(401);
  });

  it('refuses an unknown person, an unverified email and a disabled reviewer, with a reason the sign-in page words', async () => {
    const stranger = await new ReviewerClient(h.url).ssoSignIn(as('stranger@example.com'));
    expect(refusal(stranger.res)).toEqual([303, '/?sso_error=no_account', false]);
    expect(await h.db.repos.reviewers.findByEmail('stranger@example.com')).toBeNull();

    idp.setClaims('rita-unverified', { email: 'rita@example.com', email_verified: false });
    expect(refusal((await new ReviewerClient(h.url).ssoSignIn(as('rita-unverified'))).res)).toEqual([
      303,
      '/?sso_error=email_not_verified',
      false,
    ]);

    await h.seedReviewer('gone@example.com', PASSWORD, { role: 'reviewer' });
    await accountsService(h.db, 'cli:test').setReviewerDisabled('gone@example.com', true);
    expect(refusal((await new ReviewerClient(h.url).ssoSignIn(as('gone@example.com'))).res)).toEqual([
      303,
      '/?sso_error=disabled',
      false,
    ]);
  });

  it('refuses an ID token for another audience, one with a bad signature, and a replayed state', async () => {
    for (const kind of ['wrong_audience', 'bad_signature'] as const) {
      idp.tamper(kind);
      try {
        const { res } = await new ReviewerClient(h.url).ssoSignIn(as('rita@example.com'));
        expect(refusal(res), kind).toEqual([303, '/?sso_error=failed', false]);
      } finally {
        idp.tamper(null);
      }
    }
    const first = await new ReviewerClient(h.url).ssoSignIn(as('rita@example.com'));
    expect(first.res.status).toBe(303);
    expect(first.res.headers.get('location')).toBe('/');
    // Refused before its code reaches the provider (which would refuse a used code too).
    const exchanges = idp.tokenRequests();
    const replayed = await new ReviewerClient(h.url).ssoSignIn(as('rita@example.com'), { replay: first });
    expect(refusal(replayed.res)).toEqual([303, '/?sso_error=failed', false]);
    expect(idp.tokenRequests()).toBe(exchanges);
    // The callback of another sign-in, brought to a browser that started its own: states differ.
    const started = await fetch(`${h.url}/review/oidc/login`, { redirect: 'manual' });
    const other = await fetch(`${h.url}/review/oidc/login`, { redirect: 'manual' });
    const mixed = await new ReviewerClient(h.url).ssoSignIn(as('rita@example.com'), {
      replay: {
        callbackUrl: await idp.authorize(other.headers.get('location')!, 'rita@example.com'),
        pending: started.headers.getSetCookie()[0]!.split(';')[0]!,
      },
    });
    expect(refusal(mixed.res)).toEqual([303, '/?sso_error=failed', false]);
  });
});

describe('single sign-on only (PASSWORD_LOGIN=false) with auto-provisioning from groups', () => {
  let h: ReviewHarness;

  beforeAll(async () => {
    h = await harness({
      PASSWORD_LOGIN: 'false',
      BREAK_GLASS_ADMIN_EMAIL: 'root@example.com',
      OIDC_AUTO_PROVISION: 'true',
      OIDC_SCOPES: 'openid email profile groups',
      OIDC_GROUP_MAPPING: 'fd-admins=role:admin,sports-desk=channel:sports,sports-desk=channel:no-such-desk',
    });
    await h.seedChannel('sports');
    await h.seedReviewer('root@example.com', PASSWORD);
    await h.seedReviewer('rita@example.com', PASSWORD, { role: 'reviewer' });
  });
  afterAll(async () => h?.close());

  it('refuses passwords (403) except for the break-glass admin, and only while that account is an admin', async () => {
    expect(await (await fetch(`${h.url}/review/sign-in`)).json()).toMatchObject({ password_login: false });
    const rita = await new ReviewerClient(h.url).login('rita@example.com', PASSWORD);
    expect([rita.status, ((await rita.json()) as { code: string }).code]).toEqual([403, 'forbidden']);
    expect((await new ReviewerClient(h.url).login('root@example.com', PASSWORD)).status).toBe(201);
    await accountsService(h.db, 'cli:test').setReviewerRole('rita@example.com', 'admin');
    await accountsService(h.db, 'cli:test').setReviewerRole('root@example.com', 'reviewer');
    expect((await new ReviewerClient(h.url).login('root@example.com', PASSWORD)).status).toBe(401);
  });

  it('creates an unknown person as a reviewer with the channels and role their groups map to', async () => {
    idp.setClaims('nina@example.com', { groups: ['sports-desk', 'unrelated'] });
    idp.setClaims('olaf@example.com', { groups: ['fd-admins'], name: 'Olaf' });
    const nina = new ReviewerClient(h.url);
    expect((await nina.ssoSignIn(as('nina@example.com'))).res.headers.get('location')).toBe('/');
    const olaf = new ReviewerClient(h.url);
    expect((await olaf.ssoSignIn(as('olaf@example.com'))).res.headers.get('location')).toBe('/');
    const people = (await (await olaf.call('GET', '/review/people')).json()) as { people: Record<string, unknown>[] };
    const person = (email: string) => people.people.find((p) => p['email'] === email);
    expect(person('nina@example.com')).toMatchObject({ role: 'reviewer', channels: ['sports'], has_password: false });
    expect(person('olaf@example.com')).toMatchObject({ role: 'admin', channels: [], name: 'Olaf' });
    const events = await h.db.repos.accounts.events('reviewer', String(person('nina@example.com')!['id']));
    expect(events.map((e) => [e.action, e.actor])).toEqual([['created', 'oidc']]);
    // Someone the provider vouches for without groups: a reviewer of no channel, who sees nothing.
    const plain = new ReviewerClient(h.url);
    await plain.ssoSignIn(as('pat@example.com'));
    expect(await (await plain.call('GET', '/review/channels')).json()).toEqual({ channels: [] });
  });

  it('invites without a link when passwords are off: the account is simply there for the first sign-in', async () => {
    const admin = new ReviewerClient(h.url);
    await admin.ssoSignIn(as('olaf@example.com'));
    const res = await admin.call('POST', '/review/people', { email: 'quinn@example.com', channels: ['sports'] });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      person: { email: 'quinn@example.com', role: 'reviewer', channels: ['sports'] },
      invite: null,
    });
    const quinn = new ReviewerClient(h.url);
    expect((await quinn.ssoSignIn(as('quinn@example.com'))).res.headers.get('location')).toBe('/');
    expect(
      ((await (await quinn.call('GET', '/review/channels')).json()) as { channels: { slug: string }[] }).channels.map(
        (c) => c.slug,
      ),
    ).toEqual(['sports']);
  });

  it('never lets an invite link set a password or sign in: the invite is accepted through the identity provider', async () => {
    // A link handed over before passwords were turned off (or forged from an old People screen).
    const ivyRow = await createReviewer(h.db, { email: 'ivy@example.com', role: 'reviewer', channels: ['sports'] });
    const { url } = await invitesService(h.db, {
      secret: h.deps.settings.SESSION_SECRET,
      ttlHours: 1,
      baseUrl: h.url,
    }).issue(ivyRow, 'cli:test');
    const token = decodeURIComponent(url.split('#invite=')[1]!);

    const ivy = new ReviewerClient(h.url);
    const accepted = await ivy.call('POST', '/review/invite/accept', { token, password: 'a brand new password' });
    expect([accepted.status, ((await accepted.json()) as { code: string }).code]).toEqual([403, 'forbidden']);
    expect(accepted.headers.getSetCookie().some((c) => c.startsWith('fd_session='))).toBe(false);
    expect((await h.db.repos.reviewers.findByEmail('ivy@example.com'))?.passwordHash).toBeNull();
    expect((await h.db.repos.accounts.events('reviewer', ivyRow.id)).map((e) => e.action)).not.toContain(
      'password_set',
    );

    expect(await (await ivy.call('POST', '/review/invite/preview', { token })).json()).toEqual({
      email: 'ivy@example.com',
      accept_with: 'sso',
      sso: { name: 'Test IdP', url: '/review/oidc/login' },
    });
    expect((await ivy.ssoSignIn(as('ivy@example.com'))).res.headers.get('location')).toBe('/');
    expect(
      ((await (await ivy.call('GET', '/review/session')).json()) as { reviewer: { email: string } }).reviewer.email,
    ).toBe('ivy@example.com');
  });
});
