// A real OpenID Provider for tests: the certified `oidc-provider` package, in memory, on a loopback
// port. Its development login form accepts any login and password; the login is the account id,
// and its claims are what the test set for it (by default: that email, verified).
import { createServer, type Server } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { freePort } from './stack';

export type TestIdTokenTamper = 'wrong_audience' | 'bad_signature';

export interface TestOidcProvider {
  /** The issuer (OIDC_ISSUER_URL). */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Adds a redirect URI to the one client (the provider refuses any URI not registered exactly). */
  register(redirectUri: string): void;
  /** The claims of an account (the login typed into the form). */
  setClaims(login: string, claims: Record<string, unknown>): void;
  /** How many code exchanges the token endpoint has answered. */
  tokenRequests(): number;
  /** Replaces the ID token of the next token responses (null: stop). */
  tamper(kind: TestIdTokenTamper | null): void;
  /**
   * Follows an authorization URL through the provider as a browser would, signing in as `login`,
   * and returns where the provider sends the browser back (the callback with code and state).
   */
  authorize(authorizationUrl: string, login: string): Promise<string>;
  close(): Promise<void>;
}

const CLIENT_ID = 'framedesk-test';
const CLIENT_SECRET = 'a-client-secret-for-tests-only';

export async function startTestOidcProvider(): Promise<TestOidcProvider> {
  // Loaded here, not with @framedesk/testing: only the tests that start a provider pay for it (koa and all).
  const { default: OidcProvider } = await import('oidc-provider');
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const claims = new Map<string, Record<string, unknown>>();
  let tamper: TestIdTokenTamper | null = null;
  let tokenRequests = 0;
  let provider: Provider | null = null;

  const reSign = async (idToken: string): Promise<string> => {
    const payload = decodeJwt(idToken);
    if (tamper === 'wrong_audience')
      return new SignJWT({ ...payload, aud: 'another-client' })
        .setProtectedHeader({ alg: 'RS256', kid: signingKey.kid! })
        .sign(privateKey);
    // Same key id, another key: the signature cannot verify against the provider's published key.
    const { privateKey: stranger } = await generateKeyPair('RS256');
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: signingKey.kid! }).sign(stranger);
  };

  const redirectUris: string[] = [];

  const server: Server = createServer((req, res) => {
    if (!provider) {
      res.statusCode = 503;
      res.end('no client registered yet');
      return;
    }
    void provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    register(redirectUri) {
      redirectUris.push(redirectUri);
      provider = new OidcProvider(issuer, providerConfiguration(signingKey, redirectUris, claims));
      provider.use(async (ctx, next) => {
        await next();
        if (ctx.path === '/token') tokenRequests++;
        const body = ctx.body as { id_token?: string } | undefined;
        if (tamper && ctx.path === '/token' && body?.id_token) body.id_token = await reSign(body.id_token);
      });
    },
    setClaims(login, value) {
      claims.set(login, value);
    },
    tokenRequests: () => tokenRequests,
    tamper(kind) {
      tamper = kind;
    },
    authorize: (authorizationUrl, login) => followSignIn(issuer, authorizationUrl, login),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The provider's configuration: the one test client, PKCE required, claims from `claims`, consent implied. */
function providerConfiguration(
  signingKey: JWK,
  redirectUris: readonly string[],
  claims: ReadonlyMap<string, Record<string, unknown>>,
): Configuration {
  return {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [...redirectUris],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    async findAccount(_ctx: KoaContextWithOIDC, id: string) {
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: id, email_verified: true, ...claims.get(id) }),
      };
    },
    // Consent is implied for the one test client: the login form is the only interaction.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  };
}

/**
 * A browser's way through the provider's login form: follows redirects and the form with a cookie
 * jar until the provider sends the browser back to the relying party; returns that callback URL.
 */
async function followSignIn(issuer: string, authorizationUrl: string, login: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 10; step++) {
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(body ? { body } : {}),
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    body = undefined;
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url).toString();
      if (!next.startsWith(issuer)) return next;
      url = next;
      continue;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(await res.text())?.[1];
    if (res.status !== 200 || !action) throw new Error(`the provider answered ${res.status} at ${url}`);
    url = new URL(action, url).toString();
    body = new URLSearchParams({ prompt: 'login', login, password: 'any password' });
  }
  throw new Error('the provider never sent the browser back');
}
