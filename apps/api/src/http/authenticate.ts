import type { RequestHandler, Response } from 'express';
import {
  addressKey,
  type AgentPrincipal,
  type ApiKeysService,
  type FailureCounter,
  type RateLimiter,
} from '@framedesk/access';
import { DomainError } from '@framedesk/domain';
import type { Logger } from '@framedesk/observability';

/**
 * The agent authenticated for this request (set by `authenticateAgent`), with the request's id:
 * the jobs the agent's request causes carry it, so the worker's log lines join the API's.
 */
export function callerOf(res: Response): AgentPrincipal & { readonly requestId?: string } {
  const caller = res.locals['caller'] as AgentPrincipal | undefined;
  if (!caller) throw new DomainError('unauthenticated', 'Send "Authorization: Bearer <API key>".');
  return { ...caller, requestId: res.locals['requestId'] as string | undefined };
}

/**
 * Bearer agent keys (DESIGN.md §5): 401 `unauthenticated` with `WWW-Authenticate: Bearer`. An
 * address that sent too many invalid keys gets 429 before any database lookup (key guessing costs
 * us nothing). A Redis failure lets requests through.
 */
export function authenticateAgent(
  apiKeys: ApiKeysService,
  invalidKeys: FailureCounter,
  logger: Logger,
): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    const address = addressKey(req.ip ?? 'unknown');
    // Only requests that try a key count: a missing header costs no lookup.
    const retryAfter = !header
      ? null
      : await invalidKeys.blocked(address).catch((error: unknown) => {
          logger.warn(
            { err: error, request_id: res.locals['requestId'] },
            'invalid-key limiter unavailable; failing open',
          );
          return null;
        });
    if (retryAfter !== null) {
      throw new DomainError(
        'rate_limited',
        `Too many invalid API keys from this address; retry after ${retryAfter} s.`,
        {
          headers: { 'Retry-After': String(retryAfter) },
        },
      );
    }
    try {
      res.locals['caller'] = await apiKeys.authenticate(header);
    } catch (error) {
      if (header && error instanceof DomainError && error.code === 'unauthenticated')
        await invalidKeys.count(address).catch(() => undefined);
      throw error;
    }
    next();
  };
}

/** Per-key rate limit with `RateLimit-*` headers; 429 past it. A Redis failure lets requests through. */
export function rateLimitAgent(limiter: RateLimiter, logger: Logger): RequestHandler {
  return async (_req, res, next) => {
    const caller = callerOf(res);
    let decision;
    try {
      decision = await limiter.hit(caller.apiKeyId);
    } catch (error) {
      logger.warn({ err: error, request_id: res.locals['requestId'] }, 'rate limiter unavailable; failing open');
      next();
      return;
    }
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      throw new DomainError(
        'rate_limited',
        `At most ${decision.limit} requests per minute per API key; retry after ${decision.resetSeconds} s.`,
        {
          headers: { 'Retry-After': String(decision.resetSeconds) },
        },
      );
    }
    next();
  };
}
