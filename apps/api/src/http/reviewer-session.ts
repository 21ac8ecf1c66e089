import type { Request, RequestHandler, Response } from 'express';
import { CSRF_HEADER, type ReviewerPrincipal, type ReviewerSessionsService, SESSION_COOKIE } from '@framedesk/access';
import { DomainError } from '@framedesk/domain';
import { assertAdmin } from '@framedesk/review';

/**
 * The value of one cookie from the Cookie header (no cookie-parser: we read exactly one). A value
 * that is not valid percent-encoding is no cookie at all (never a 500).
 */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface SessionCookieOptions {
  /** Behind a TLS-terminating proxy every cookie is Secure, whatever the hop to us was. */
  readonly trustProxy: boolean;
}

const isSecure = (req: Request, options: SessionCookieOptions) => options.trustProxy || req.secure;

/**
 * `__Host-<name>` when the cookie is Secure: browsers then refuse it unless it was set over
 * TLS by this host with Path=/ and no Domain, so a sibling subdomain cannot plant one.
 */
export function cookieName(req: Request, base: string, options: SessionCookieOptions): string {
  return isSecure(req, options) ? `__Host-${base}` : base;
}

export function sessionCookieName(req: Request, options: SessionCookieOptions): string {
  return cookieName(req, SESSION_COOKIE, options);
}

export function readSessionCookie(req: Request, options: SessionCookieOptions): string | undefined {
  return readCookie(req, sessionCookieName(req, options));
}

/** `Set-Cookie` of an httpOnly, SameSite=Lax cookie for the whole site (Secure behind TLS). */
export function cookie(
  req: Request,
  base: string,
  value: string,
  maxAgeSeconds: number,
  options: SessionCookieOptions,
): string {
  const secure = isSecure(req, options);
  return [
    `${cookieName(req, base, options)}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function setSessionCookie(
  req: Request,
  res: Response,
  token: string,
  expiresAt: Date,
  options: SessionCookieOptions,
): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  res.append('Set-Cookie', cookie(req, SESSION_COOKIE, token, maxAge, options));
}

export function clearSessionCookie(req: Request, res: Response, options: SessionCookieOptions): void {
  res.append('Set-Cookie', cookie(req, SESSION_COOKIE, '', 0, options));
}

export function reviewerOf(res: Response): ReviewerPrincipal {
  return res.locals['reviewer'] as ReviewerPrincipal;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Only a live reviewer session passes: anonymous calls and agent API keys get 401. Every write
 * must also carry the session's CSRF token in X-CSRF-Token (403 otherwise).
 */
export function requireReviewer(sessions: ReviewerSessionsService, options: SessionCookieOptions): RequestHandler {
  return async (req, res, next) => {
    const principal = await sessions.authenticate(readSessionCookie(req, options));
    if (!principal) {
      const agentKey = /^Bearer\s/i.test(req.get('authorization') ?? '');
      throw new DomainError(
        'unauthenticated',
        agentKey
          ? 'The review API does not accept agent API keys; sign in to the workbench.'
          : 'Sign in to the workbench first.',
      );
    }
    if (!SAFE_METHODS.has(req.method)) sessions.checkCsrf(principal, req.get(CSRF_HEADER));
    res.locals['reviewer'] = principal;
    next();
  };
}

/** Ops, retries and people: admins only (403 forbidden for a reviewer). Mount after requireReviewer. */
export const requireAdmin: RequestHandler = (_req, res, next) => {
  assertAdmin(reviewerOf(res));
  next();
};
