import { type Request, type Response, Router } from 'express';
import {
  firstUse,
  type InvitesService,
  OIDC_PENDING_SECONDS,
  type OidcRelyingParty,
  OidcVerificationError,
  type ReviewerPrincipal,
  type ReviewerSessionsService,
  safeReturnPath,
  SsoRefusal,
  type SsoService,
} from '@framedesk/access';
import { DomainError } from '@framedesk/domain';
import type { ApiDependencies } from '../dependencies';
import { requireJson } from '../http/json-body';
import {
  cookie,
  readCookie,
  cookieName,
  readSessionCookie,
  type SessionCookieOptions,
  setSessionCookie,
} from '../http/reviewer-session';

const PENDING_COOKIE = 'fd_oidc';

export interface SignInRoutesDeps {
  readonly api: ApiDependencies;
  readonly sessions: ReviewerSessionsService;
  readonly invites: InvitesService;
  readonly cookies: SessionCookieOptions;
  /** Present when OIDC_ISSUER_URL is set. */
  readonly sso?: { readonly relyingParty: OidcRelyingParty; readonly people: SsoService } | undefined;
}

const text = (body: Record<string, unknown>, key: string) => (typeof body[key] === 'string' ? body[key] : '');

/** The sign-in answer: who, the CSRF token for writes, when the session ends. */
export function sessionBody(principal: ReviewerPrincipal) {
  return {
    reviewer: { id: principal.reviewerId, email: principal.email, name: principal.name, role: principal.role },
    csrf_token: principal.csrfToken,
    expires_at: principal.expiresAt.toISOString(),
  };
}

/**
 * The doors before a session: password sign-in, single sign-on (OpenID Connect, authorization code
 * with PKCE) and invite links. Each ends in the same cookie session.
 */
export function signInRoutes(deps: SignInRoutesDeps): Router {
  const { api, sessions, invites, cookies, sso } = deps;
  const router = Router();
  const passwordLogin = api.settings.PASSWORD_LOGIN;
  const once = firstUse(api.redis, api.settings.REDIS_PREFIX);

  const signedIn = (req: Request, res: Response, token: string, principal: ReviewerPrincipal) => {
    setSessionCookie(req, res, token, principal.expiresAt, cookies);
    res.status(201).json(sessionBody(principal));
  };

  /** What the sign-in page offers (public: it is shown before anyone is signed in). */
  router.get('/sign-in', (_req, res) => {
    res.json({
      password_login: passwordLogin,
      sso: sso ? { name: api.settings.OIDC_PROVIDER_NAME, url: '/review/oidc/login' } : null,
    });
  });

  router.post('/session', async (req, res) => {
    const body = requireJson(req);
    const [email, password] = [text(body, 'email'), text(body, 'password')];
    if (!email || !password || password.length > 1024)
      throw new DomainError('validation_failed', 'Send an email and a password.');
    const previousToken = readSessionCookie(req, cookies);
    const { token, principal } = await sessions.login({
      email,
      password,
      ip: req.ip ?? 'unknown',
      ...(previousToken ? { previousToken } : {}),
    });
    signedIn(req, res, token, principal);
  });

  /**
   * Whose invite this is, and how it is accepted: by choosing a password, or (PASSWORD_LOGIN=false)
   * by signing in with the identity provider, which matches the invited account by email.
   */
  router.post('/invite/preview', async (req, res) => {
    const { email } = await invites.preview(text(requireJson(req), 'token'));
    if (passwordLogin) return void res.json({ email, accept_with: 'password' });
    res.json({
      email,
      accept_with: 'sso',
      sso: sso ? { name: api.settings.OIDC_PROVIDER_NAME, url: '/review/oidc/login' } : null,
    });
  });

  router.post('/invite/accept', async (req, res) => {
    const body = requireJson(req);
    const reviewer = await invites.accept(text(body, 'token'), text(body, 'password'));
    const { token, principal } = await sessions.open(reviewer, readSessionCookie(req, cookies));
    signedIn(req, res, token, principal);
  });

  if (!sso) return router;

  router.get('/oidc/login', async (req, res) => {
    const { url, pending } = await sso.relyingParty.start(safeReturnPath(req.query['return_to']));
    res.append('Set-Cookie', cookie(req, PENDING_COOKIE, pending, OIDC_PENDING_SECONDS, cookies));
    res.redirect(303, url);
  });

  /**
   * The provider sends the browser back here. Any failure sends it to the sign-in page with a
   * reason the workbench puts in words (`/?sso_error=…`); the details go to the log.
   */
  router.get('/oidc/callback', async (req, res) => {
    res.append('Set-Cookie', cookie(req, PENDING_COOKIE, '', 0, cookies));
    const refuse = (reason: string, detail: string) => {
      api.logger.warn({ reason, detail, request_id: res.locals['requestId'] }, 'single sign-on refused');
      res.redirect(303, `/?sso_error=${reason}`);
    };
    const callbackUrl = new URL(req.originalUrl, api.config.api.base_url);
    let finished;
    try {
      finished = await sso.relyingParty.finish(
        callbackUrl,
        readCookie(req, cookieName(req, PENDING_COOKIE, cookies)),
        // A state is good once, on every instance: a replayed callback is refused even with its cookie.
        (state) => once('oidc-state', state, OIDC_PENDING_SECONDS * 1000),
      );
    } catch (error) {
      if (error instanceof OidcVerificationError) return refuse('failed', error.message);
      return refuse('unavailable', error instanceof Error ? error.message : String(error));
    }
    try {
      const reviewer = await sso.people.reviewerFor(finished.claims);
      const { token, principal } = await sessions.open(reviewer, readSessionCookie(req, cookies));
      setSessionCookie(req, res, token, principal.expiresAt, cookies);
      res.redirect(303, finished.returnTo);
    } catch (error) {
      if (error instanceof SsoRefusal) return refuse(error.reason, error.message);
      throw error;
    }
  });

  return router;
}
