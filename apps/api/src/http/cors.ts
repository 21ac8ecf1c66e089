import type { RequestHandler } from 'express';

const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const EXPOSE_HEADERS =
  'X-Request-Id, Idempotent-Replayed, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Location';

/**
 * CORS for the agent API, only for the origins listed in CORS_ORIGINS (none by default: agents
 * are programs, and the workbench is served from the API's own origin). Credentials are never
 * allowed: browser callers authenticate with a Bearer key, not cookies.
 */
export function agentCors(origins: string): RequestHandler {
  const allowed = new Set(
    origins
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  );
  return (req, res, next) => {
    const origin = req.get('origin');
    if (allowed.size === 0 || !origin) return next();
    res.vary('Origin');
    if (!allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    if (req.method === 'OPTIONS' && req.get('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
