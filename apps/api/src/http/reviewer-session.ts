import type { Request, RequestHandler, Response } from 'express';
import { CSRF_HEADER, type ReviewerPrincipal, type ReviewerSessionsService, SESSION_COOKIE } from '@framedesk/access';
import { DomainError } from '@framedesk/domain';

/** The value of one cookie from the Cookie header (no cookie-parser: we read exactly one). */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export interface SessionCookieOptions {
  /** Behind a TLS-terminating proxy every cookie is Secure, whatever the hop to us was. */
  readonly trustProxy: boolean;
}

function cookie(req: Request, value: string, maxAgeSeconds: number, options: SessionCookieOptions): string {
  const secure = options.trustProxy || req.secure;
  return [
    `${SESSION_COOKIE}=${value}`,
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
  res.append('Set-Cookie', cookie(req, token, maxAge, options));
}

export function clearSessionCookie(req: Request, res: Response, options: SessionCookieOptions): void {
  res.append('Set-Cookie', cookie(req, '', 0, options));
}

export function reviewerOf(res: Response): ReviewerPrincipal {
  return res.locals['reviewer'] as ReviewerPrincipal;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Only a live reviewer session passes: anonymous calls and agent API keys get 401. Every write
 * must also carry the session's CSRF token in X-CSRF-Token (403 otherwise).
 */
export function requireReviewer(sessions: ReviewerSessionsService): RequestHandler {
  return async (req, res, next) => {
    const principal = await sessions.authenticate(readCookie(req, SESSION_COOKIE));
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
