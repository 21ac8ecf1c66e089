/** One field's complaint in a 422 (`errors[]` of the problem body). */
export interface ProblemFieldError {
  readonly pointer?: string;
  readonly detail?: string;
  readonly [extra: string]: unknown;
}

/**
 * Codes the client itself raises, beside the server's (ERROR_CATALOG in docs/api.md):
 * `network_error` (no HTTP answer after the retries), `timeout` (waitForStatus gave up),
 * `unexpected_status` (waitForStatus saw a final status it was not waiting for),
 * `invalid_response` (an answer that is not the documented shape).
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'unexpected_status' | 'invalid_response';

export interface FramedeskErrorInit {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly title?: string;
  readonly errors?: readonly ProblemFieldError[];
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly body?: unknown;
  readonly cause?: unknown;
}

/** Every failure the client reports: a problem+json answer, or one of ClientErrorCode (status 0). */
export class FramedeskError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly title: string | undefined;
  readonly errors: readonly ProblemFieldError[];
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly body: unknown;

  constructor(init: FramedeskErrorInit) {
    const fields = (init.errors ?? []).map((e) => `${e.pointer ?? ''} ${e.detail ?? ''}`.trim()).filter(Boolean);
    super(`${init.code}: ${init.detail}${fields.length > 0 ? ` (${fields.join('; ')})` : ''}`, { cause: init.cause });
    this.name = 'FramedeskError';
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.title = init.title;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
  }
}

export function isFramedeskError(value: unknown): value is FramedeskError {
  return value instanceof FramedeskError;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Turns a non-2xx response into a FramedeskError, whatever its body. */
export async function errorFromResponse(response: Response): Promise<FramedeskError> {
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: a proxy's HTML page or a provider's plain text
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return new FramedeskError({
    status: response.status,
    code: str(body?.['code']) ?? `http_${response.status}`,
    detail: str(body?.['detail']) ?? (text.slice(0, 200) || response.statusText || `HTTP ${response.status}`),
    title: str(body?.['title']),
    errors: Array.isArray(body?.['errors']) ? (body['errors'] as ProblemFieldError[]) : undefined,
    requestId: str(body?.['request_id']) ?? response.headers.get('x-request-id') ?? undefined,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    body: body ?? text,
  });
}
