import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { DomainError, ERROR_CATALOG, type ErrorCode, isDomainError } from '@framedesk/domain';
import { asUnavailable } from './unavailable';

export const PROBLEM_TYPE_BASE = 'https://framedesk.dev/problems/';

/** RFC 9457 body for a domain error; the one shape every non-2xx answer has. */
export function problemBody(error: DomainError, requestId: string) {
  return {
    type: PROBLEM_TYPE_BASE + error.code,
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    request_id: requestId,
    ...(error.errors && error.errors.length > 0 ? { errors: error.errors } : {}),
  };
}

export function sendProblem(res: Response, error: DomainError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res
    .status(error.status)
    .type('application/problem+json')
    .send(JSON.stringify(problemBody(error, res.locals['requestId'] as string)));
}

/** Errors that Express, body parsers and multer raise, mapped onto the error table. */
function fromFrameworkError(error: unknown): DomainError | null {
  const e = error as { type?: string; status?: number; statusCode?: number; code?: string; message?: string };
  if (e.type === 'entity.parse.failed')
    return new DomainError('invalid_request', 'The request body is not valid JSON.');
  if (e.type === 'entity.too.large') return new DomainError('payload_too_large', 'The request body is too large.');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    return new DomainError('unsupported_media_type', e.message ?? 'Unsupported encoding.');
  if (e.type === 'request.aborted')
    return new DomainError('invalid_request', 'The request was aborted before its body arrived.');
  const status = e.status ?? e.statusCode;
  if (status && status >= 400 && status < 500) {
    const code = (Object.entries(ERROR_CATALOG).find(([, v]) => v.status === status)?.[0] ??
      'invalid_request') as ErrorCode;
    return new DomainError(code, e.message ?? ERROR_CATALOG[code].title);
  }
  return null;
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new DomainError('not_found', `No route for ${req.method} ${req.path}.`));
};

export function errorHandler(
  /** `transient`: a dependency down or switching (a Redis failover): a warning, not a crash. */
  log: (error: unknown, req: Parameters<ErrorRequestHandler>[1], transient: boolean) => void,
): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const domain = isDomainError(error) ? error : fromFrameworkError(error);
    if (domain) return sendProblem(res, domain);
    const unavailable = asUnavailable(error);
    log(error, req, unavailable !== null);
    if (unavailable) return sendProblem(res, unavailable);
    sendProblem(
      res,
      new DomainError('internal_error', 'Something went wrong on our side; the request id identifies it in our logs.'),
    );
  };
}

/** 405 with `Allow` for a path that exists under other methods. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (req, _res, next) =>
    next(
      new DomainError('method_not_allowed', `${req.method} is not allowed here.`, {
        headers: { Allow: allowed.join(', ') },
      }),
    );
}
