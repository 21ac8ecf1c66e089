import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { RateLimiter } from '@framedesk/access';
import { DomainError, type FieldError } from '@framedesk/domain';
import type { Logger } from '@framedesk/observability';
import { callerOf } from '../http/authenticate';

/** A call's JSON-RPC envelope and arguments other than the frame's metadata (idempotency key, _meta). */
export const ENVELOPE_BYTES = 4096;
/** Field errors one tool error lists; the rest are counted ("and N more"). */
export const ERRORS_SHOWN = 20;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;

/**
 * express.json's `verify`, run on the raw body before JSON.parse: a body whose JSON would hold
 * more values than `perCall` bytes of arguments can (times MCP_BATCH_MAX for a batch) is 413 at
 * once. Every JSON value after the first in a container follows a comma and every container opens
 * with a brace or a bracket, so counting those three bytes bounds the values (and the memory and
 * time JSON.parse would spend) without parsing. A base64 image holds none of them.
 */
export function valueBudget(perCall: number, batchMax: number) {
  return (_req: IncomingMessage, _res: unknown, body: Buffer): void => {
    let start = 0;
    while (
      start < body.length &&
      (body[start] === 0x20 || body[start] === 0x0a || body[start] === 0x0d || body[start] === 0x09)
    )
      start++;
    const batch = body[start] === OPEN_BRACKET;
    const budget = perCall * (batch ? batchMax : 1);
    let count = 0;
    for (let i = start; i < body.length; i++) {
      const byte = body[i];
      if (byte === COMMA || byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (++count > budget)
          throw new DomainError(
            'payload_too_large',
            `The request holds more JSON values than ${batch ? `${batchMax} calls (MCP_BATCH_MAX)` : 'one call'} can: ` +
              `a call's arguments besides image_base64 are limited to ${perCall - ENVELOPE_BYTES} bytes (api.metadata_max_bytes).`,
          );
      }
    }
  };
}

/**
 * Whether `value` serialised as JSON would take more than `max` bytes, found by walking it and
 * stopping as soon as the count passes `max` (never serialising or walking more than that).
 */
export function jsonBytesOver(value: unknown, max: number): boolean {
  let bytes = 0;
  const text = (s: string) => {
    bytes += s.length > max - bytes ? s.length : Buffer.byteLength(JSON.stringify(s));
  };
  const stack: unknown[] = [value];
  while (stack.length > 0 && bytes <= max) {
    const item = stack.pop();
    if (typeof item === 'string') text(item);
    else if (typeof item === 'number' || typeof item === 'boolean') bytes += String(item).length;
    else if (item === null) bytes += 4;
    else if (Array.isArray(item)) {
      // The brackets and the commas between the elements.
      bytes += 1 + Math.max(item.length, 1);
      if (bytes <= max) for (const element of item) stack.push(element);
    } else if (typeof item === 'object') {
      const entries = Object.entries(item as object).filter(([, v]) => v !== undefined);
      bytes += 1 + Math.max(entries.length, 1);
      for (const [key, element] of entries) {
        if (bytes > max) break;
        text(key);
        bytes += 1; // the colon
        stack.push(element);
      }
    }
  }
  return bytes > max;
}

/** At most ERRORS_SHOWN field errors, the last line counting the others. */
export function boundedErrors(errors: readonly FieldError[]): FieldError[] {
  if (errors.length <= ERRORS_SHOWN) return [...errors];
  return [
    ...errors.slice(0, ERRORS_SHOWN),
    { pointer: '/', detail: `and ${errors.length - ERRORS_SHOWN} more errors` },
  ];
}

/**
 * The calls of one /mcp request (a JSON-RPC batch) one after another, never all at once: the
 * request holds one place of the key's MCP_CONCURRENT_PER_KEY, and its calls run in that place.
 */
export function oneAtATime(): <T>(run: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>): Promise<T> => {
    const next = last.then(run, run);
    last = next.catch(() => undefined);
    return next;
  };
}

const isRequest = (message: unknown): boolean =>
  typeof message === 'object' && message !== null && 'method' in message && 'id' in message;

/**
 * A JSON-RPC batch: at most `batchMax` messages (400 beyond), and every request in it counts
 * against the key's rate limit. The HTTP request was counted once already (rateLimitAgent), so a
 * batch of N requests counts N - 1 more; past the limit the whole batch is 429, none of it runs.
 */
export function countBatch(limiter: RateLimiter, batchMax: number, logger: Logger): RequestHandler {
  return async (req, res, next) => {
    const body: unknown = req.body;
    if (!Array.isArray(body)) return next();
    if (body.length > batchMax)
      throw new DomainError(
        'invalid_request',
        `A JSON-RPC batch holds at most ${batchMax} messages (MCP_BATCH_MAX); this one has ${body.length}. Send the calls separately.`,
      );
    const more = body.filter(isRequest).length - 1;
    if (more <= 0) return next();
    let decision;
    try {
      decision = await limiter.hit(callerOf(res).apiKeyId, more);
    } catch (error) {
      logger.warn({ err: error, request_id: res.locals['requestId'] }, 'rate limiter unavailable; failing open');
      return next();
    }
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed)
      throw new DomainError(
        'rate_limited',
        `At most ${decision.limit} requests per minute per API key, and each call of a batch counts; retry after ${decision.resetSeconds} s.`,
        { headers: { 'Retry-After': String(decision.resetSeconds) } },
      );
    next();
  };
}
