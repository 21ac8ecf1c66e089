import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DomainError, isDomainError } from '@framedesk/domain';
import { asUnavailable } from '../http/unavailable';

/** A successful tool result: the JSON resource as structuredContent, and a text a model can read. */
export function toolResult(body: unknown, summary: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `${summary}\n${JSON.stringify(body, null, 2)}` }],
    structuredContent: body as Record<string, unknown>,
  };
}

/**
 * A failure the model should see and correct: `isError: true`, text starting `<code>: <detail>`
 * (then one line per field error), and the problem's members as structuredContent.
 */
export function toolError(error: unknown, onUnexpected: (error: unknown) => void): CallToolResult {
  let domain: DomainError;
  if (isDomainError(error)) domain = error;
  else {
    onUnexpected(error);
    domain =
      asUnavailable(error) ??
      new DomainError('internal_error', 'Something went wrong on our side; retry later or report it.');
  }
  const errors = domain.errors ?? [];
  const lines = [`${domain.code}: ${domain.detail}`, ...errors.map((e) => `${e.pointer}: ${e.detail}`)];
  const retryAfter = domain.headers['Retry-After'];
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      code: domain.code,
      status: domain.status,
      title: domain.title,
      detail: domain.detail,
      ...(errors.length > 0 ? { errors } : {}),
      ...(retryAfter ? { retry_after_seconds: Number(retryAfter) } : {}),
    },
  };
}
