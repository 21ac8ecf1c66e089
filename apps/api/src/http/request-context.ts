import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@framedesk/observability';
import type { Histogram } from '@framedesk/observability';

const INCOMING_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** A request id on every response and log line; one log line per request, with its latency. */
export function requestContext(logger: Logger, latency: Histogram<'method' | 'route' | 'status'>): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
    res.locals['requestId'] = requestId;
    res.locals['log'] = logger.child({ request_id: requestId });
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route?.path as string | undefined) ? `${req.baseUrl}${req.route.path as string}` : 'unmatched';
      latency.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      (res.locals['log'] as Logger).info(
        { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000) },
        'request',
      );
    });
    next();
  };
}
