// Building blocks of the hostile corpus: raw requests to POST /v1/frame-submissions.
import { randomUUID } from 'node:crypto';
import { multipartBody, type Part, requestBytes } from './raw-http';

/**
 * What an answer may be. `4xx`: a problem+json client error. `4xx-or-202`: the API may accept
 * it and let the worker fail it (lying or hostile images). `framing`: the request is not even
 * HTTP Node can parse, so a bare 4xx from the HTTP layer (or a closed connection) is fine.
 */
export type Expectation = '4xx' | '4xx-or-202' | 'framing';

export interface HostileCase {
  readonly name: string;
  readonly bytes: Buffer | Buffer[];
  readonly expect: Expectation;
  /** When accepted, the worker must end it `failed` (a hostile image). */
  readonly mustFailIfAccepted?: boolean;
  /** Cases that wait for a server time-out get longer. */
  readonly timeoutMs?: number;
  /** The client hangs up after sending `bytes` (no answer expected; the server must survive). */
  readonly hangUp?: boolean;
}

export interface CorpusContext {
  readonly key: string;
  readonly agent: string;
  readonly channel: string;
}

export const meta = (ctx: CorpusContext, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ agent_slug: ctx.agent, channel_slug: ctx.channel, date: '20260101', ...extra });

export function post(
  ctx: CorpusContext,
  body: Buffer,
  contentType: string | undefined,
  headers: Record<string, string> = {},
): Buffer {
  return requestBytes({
    path: '/v1/frame-submissions',
    headers: {
      authorization: `Bearer ${ctx.key}`,
      'idempotency-key': randomUUID(),
      ...(contentType ? { 'content-type': contentType } : {}),
      ...headers,
    },
    body,
  });
}

export function form(ctx: CorpusContext, parts: Part[], boundary?: string): Buffer {
  const { body, contentType } = multipartBody(parts, boundary);
  return post(ctx, body, contentType);
}

export const metadataPart = (value: string | Buffer): Part => ({
  name: 'metadata',
  contentType: 'application/json',
  body: value,
});
export const imagePart = (png: Buffer, filename = 'frame.png', contentType = 'image/png'): Part => ({
  name: 'image',
  filename,
  contentType,
  body: png,
});

/** Nested arrays `depth` deep, as JSON text (never built as an object here). */
export const deepJson = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
export const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
