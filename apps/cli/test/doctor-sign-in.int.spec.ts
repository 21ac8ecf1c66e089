// `framedesk doctor`'s sign-in lines against a real OpenID Provider and database: the redirect URL
// to register, the issuer answering as itself, and who can still get in.
import { createReviewer } from '@framedesk/access';
import { loadSettings, type ProjectConfig } from '@framedesk/config';
import { createDatabase, type Database } from '@framedesk/db';
import {
  createTestDatabase,
  startTestOidcProvider,
  type TestDatabase,
  type TestOidcProvider,
} from '@framedesk/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkSignIn } from '../src/doctor/sign-in';

let idp: TestOidcProvider;
let database: TestDatabase;
let db: Database;
const config = { api: { base_url: 'https://review.example.com' } } as ProjectConfig;
const lines = async (env: Record<string, string>) =>
  (await checkSignIn(loadSettings({ DATABASE_URL: database.url, ...env }), config)).map((c) => [
    c.name,
    c.status,
    c.message,
  ]);

beforeAll(async () => {
  idp = await startTestOidcProvider();
  idp.register('https://review.example.com/review/oidc/callback');
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolSize: 2 });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
  await idp?.close();
});

it('shows the redirect URL to register, checks the issuer answers as itself, and warns when nobody is admin', async () => {
  const sso = { OIDC_ISSUER_URL: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_PROVIDER_NAME: 'Okta' };
  expect(await lines(sso)).toEqual([
    [
      'single sign-on',
      'ok',
      'redirect URL to register at the provider: https://review.example.com/review/oidc/callback',
    ],
    ['sso provider', 'ok', `Okta: ${idp.issuer} answers its discovery document`],
    ['admins', 'warn', expect.stringContaining('no enabled admin')],
  ]);
  const [, provider] = await lines({ ...sso, OIDC_ISSUER_URL: `${idp.issuer}/` });
  expect(provider).toEqual(['sso provider', 'fail', expect.stringContaining(`calls itself ${idp.issuer}`)]);
  expect((await lines({}))[0]).toEqual([
    'single sign-on',
    'ok',
    expect.stringContaining('https://review.example.com/review/oidc/callback'),
  ]);
});

it('with PASSWORD_LOGIN=false, names whether the break-glass account can still sign in', async () => {
  await createReviewer(db, { email: 'root@example.com', password: 'a long password', role: 'admin' });
  await createReviewer(db, { email: 'rita@example.com', password: 'a long password' });
  const off = { OIDC_ISSUER_URL: idp.issuer, OIDC_CLIENT_ID: idp.clientId, PASSWORD_LOGIN: 'false' };
  const breakGlass = async (email?: string) =>
    (await lines({ ...off, ...(email ? { BREAK_GLASS_ADMIN_EMAIL: email } : {}) })).find((l) => l[0] === 'break-glass');
  expect(await breakGlass()).toEqual(['break-glass', 'warn', expect.stringContaining('no BREAK_GLASS_ADMIN_EMAIL')]);
  expect(await breakGlass('Root@example.com')).toEqual([
    'break-glass',
    'ok',
    expect.stringContaining('root@example.com'),
  ]);
  expect(await breakGlass('rita@example.com')).toEqual([
    'break-glass',
    'warn',
    expect.stringContaining('not an enabled admin'),
  ]);
  expect((await lines(off)).find((l) => l[0] === 'admins')).toEqual(['admins', 'ok', '1 enabled admin(s)']);
});
