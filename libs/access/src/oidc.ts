import type * as OpenIdClient from 'openid-client';
import { openValue, sealValue } from './signed-values';

export interface OidcOptions {
  readonly issuerUrl: string;
  readonly clientId: string;
  /** Without one: a public client, PKCE only. */
  readonly clientSecret?: string | undefined;
  /** `{api.base_url}/review/oidc/callback`, registered exactly at the provider. */
  readonly redirectUri: string;
  /** `openid email profile` unless told otherwise. */
  readonly scopes?: string | undefined;
  /** Signs the sign-in in progress carried by the browser (SESSION_SECRET). */
  readonly secret: string;
  readonly now?: () => Date;
}

/** The claims Framedesk reads: the verified ID token's, completed from userinfo. */
export type IdentityClaims = Readonly<Record<string, unknown>> & { readonly sub: string };

/** Why a sign-in did not verify (kept for the log; the person sees one plain refusal). */
export class OidcVerificationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OidcVerificationError';
  }
}

const PENDING = 'oidc-sign-in';
/** How long a person may spend at the provider before the sign-in must start again. */
export const OIDC_PENDING_SECONDS = 600;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

// Loaded on the first sign-in, not with @framedesk/access: the CLI and the worker never need it.
let library: Promise<typeof OpenIdClient> | undefined;
const openIdClient = () => (library ??= import('openid-client'));

/** Where to go after signing in: a path of the workbench, never another site. */
export function safeReturnPath(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[^\s]*$/.test(value) && value.length <= 512 ? value : '/';
}

/**
 * The relying party (openid-client, OpenID certified): authorization code flow with PKCE (S256),
 * `state` and `nonce`, the three kept in a short-lived signed value the browser carries in a cookie.
 * The provider's metadata is discovered on first use (and again after a failure).
 */
export function oidcRelyingParty(options: OidcOptions) {
  const now = options.now ?? (() => new Date());
  let configuration: Promise<OpenIdClient.Configuration> | null = null;

  const discover = () => {
    const issuer = new URL(options.issuerUrl);
    const insecure = issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname);
    configuration ??= openIdClient()
      .then((oidc) =>
        oidc.discovery(
          issuer,
          options.clientId,
          options.clientSecret ? { client_secret: options.clientSecret } : undefined,
          options.clientSecret ? oidc.ClientSecretBasic(options.clientSecret) : oidc.None(),
          {
            // The ID token's signature is checked against the provider's published keys even though
            // it came straight from the token endpoint (where OpenID Connect lets TLS stand in for it).
            execute: [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])],
          },
        ),
      )
      .catch((error: unknown) => {
        configuration = null;
        throw error;
      });
    return configuration;
  };

  return {
    /** The provider's sign-in address, and the signed value to keep in a cookie until the callback. */
    async start(returnTo: string): Promise<{ url: string; pending: string }> {
      const [oidc, config] = await Promise.all([openIdClient(), discover()]);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: options.redirectUri,
        scope: options.scopes ?? 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      const expiresAt = new Date(now().getTime() + OIDC_PENDING_SECONDS * 1000);
      const pending = sealValue(options.secret, PENDING, { s: state, n: nonce, v: verifier, r: returnTo }, expiresAt);
      return { url: url.toString(), pending };
    },

    /**
     * Completes the sign-in at the callback: the code is exchanged (with the PKCE verifier) and the
     * ID token verified (issuer, audience, signature, expiry, nonce), the state compared.
     */
    async finish(
      callbackUrl: URL,
      pendingValue: string | undefined,
      /** True the first time a state is seen: a replayed callback stops before the code is used. */
      firstUse: (state: string) => Promise<boolean>,
    ): Promise<{ claims: IdentityClaims; returnTo: string }> {
      const pending = openValue(options.secret, PENDING, pendingValue, now());
      const [state, nonce, verifier] = [pending?.['s'], pending?.['n'], pending?.['v']];
      if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string')
        throw new OidcVerificationError('no sign-in in progress in this browser, or it took too long');
      const [oidc, config] = await Promise.all([openIdClient(), discover()]);
      if (!(await firstUse(state)))
        throw new OidcVerificationError('this sign-in was completed already (replayed state)');
      try {
        const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims();
        if (!idToken) throw new OidcVerificationError('the provider sent no ID token');
        let claims: IdentityClaims = { ...idToken };
        // Userinfo completes the ID token (some providers put email or groups only there); the
        // ID token's own claims win. Without an email from either, the sign-in cannot match anyone.
        if (tokens.access_token && config.serverMetadata().userinfo_endpoint) {
          const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub).catch((error: unknown) => {
            if (typeof claims['email'] !== 'string') throw error;
            return {};
          });
          claims = { ...info, ...claims };
        }
        return { claims, returnTo: safeReturnPath(pending?.['r']) };
      } catch (error) {
        if (error instanceof OidcVerificationError) throw error;
        throw new OidcVerificationError(error instanceof Error ? error.message : String(error), { cause: error });
      }
    },
  };
}

export type OidcRelyingParty = ReturnType<typeof oidcRelyingParty>;
