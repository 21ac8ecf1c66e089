// Property-based hostile input (fast-check) against the real server: whatever the metadata,
// image bytes, multipart mutation, header or id, the answer is 202 or a 4xx problem+json.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng } from '@framedesk/testing';
import { API_RSS_BOUND_MIB, call, type RelStack, reportFigures, startRelStack, waitForSettled } from './harness';
import { multipartBody, rawRequest, type RawResponse, requestBytes, rssMiB } from './raw-http';

const RUNS = 60;
const tally: Record<string, number> = {};
let requests = 0;
let crashes = 0;
const accepted: string[] = [];

/** The property every answer must have. Returns the status for tallies. */
function wellFormed(response: RawResponse, allow202: boolean): boolean {
  requests++;
  tally[String(response.status)] = (tally[String(response.status)] ?? 0) + 1;
  if (response.timedOut) return false;
  if (response.status === 202 && allow202) {
    accepted.push((JSON.parse(response.body.toString()) as { id: string }).id);
    return true;
  }
  if (response.status < 400 || response.status >= 500) return false;
  if (!(response.headers['content-type'] ?? '').startsWith('application/problem+json')) return false;
  const body = JSON.parse(response.body.toString()) as { code?: unknown; status?: unknown };
  return typeof body.code === 'string' && body.status === response.status;
}

describe('hostile input: properties', () => {
  let stack: RelStack;
  let key: string;
  const png = makePng(16, 16);

  /** A crash fails the property; the API is restarted so the run can go on and shrink. */
  const ensureUp = async () => {
    if (stack.api().child.exitCode === null && stack.api().child.signalCode === null) return true;
    crashes++;
    await stack.startApi();
    return false;
  };
  const checked = async (response: Promise<RawResponse>, allow202: boolean) => {
    const answer = await response;
    await new Promise((r) => setTimeout(r, 10));
    return (await ensureUp()) && wellFormed(answer, allow202);
  };

  const send = (metadata: string | Buffer, image: Buffer, headers: Record<string, string> = {}) => {
    const { body, contentType } = multipartBody([
      { name: 'metadata', contentType: 'application/json', body: metadata },
      { name: 'image', filename: 'f.png', contentType: 'image/png', body: image },
    ]);
    return rawRequest(
      stack.apiPort,
      requestBytes({
        path: '/v1/frame-submissions',
        headers: {
          authorization: `Bearer ${key}`,
          'idempotency-key': randomUUID(),
          'content-type': contentType,
          ...headers,
        },
        body,
      }),
      { timeoutMs: 20_000 },
    );
  };

  beforeAll(async () => {
    stack = await startRelStack({
      workers: 1,
      env: { RATE_LIMIT_PER_MINUTE: '100000', REQUEST_TIMEOUT_SECONDS: '10' },
    });
    key = await stack.createAgent('bot', ['news']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('any JSON as metadata (with hostile keys mixed in)', async () => {
    const hostileKey = fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'agent_slug',
      'channel_slug',
      'date',
      'title',
      'click_zones',
      'toString',
      'hasOwnProperty',
    );
    const value = fc.jsonValue({ maxDepth: 4 });
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.oneof(hostileKey, fc.string({ maxLength: 12 })), value, { maxKeys: 8 }),
        fc.boolean(),
        async (extra, valid) => {
          const base = valid ? { agent_slug: 'bot', channel_slug: 'news', date: '20260101' } : {};
          const text = `{${[...Object.entries(base), ...Object.entries(extra)].map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
          return checked(send(text, png), true);
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('any bytes as metadata', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) =>
        checked(send(Buffer.from(bytes), png), false),
      ),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('any bytes as the image, with or without the PNG signature', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), fc.boolean(), async (bytes, signed) => {
        const image = signed ? Buffer.concat([png.subarray(0, 8), Buffer.from(bytes)]) : Buffer.from(bytes);
        return checked(
          send(JSON.stringify({ agent_slug: 'bot', channel_slug: 'news', date: '20260101' }), image),
          true,
        );
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  // This property found the unhandled busboy file-stream error that crashed the API.
  it('a valid body with bytes flipped, cut or inserted anywhere', async () => {
    const { body, contentType } = multipartBody([
      {
        name: 'metadata',
        contentType: 'application/json',
        body: JSON.stringify({ agent_slug: 'bot', channel_slug: 'news', date: '20260101' }),
      },
      { name: 'image', filename: 'f.png', contentType: 'image/png', body: png },
    ]);
    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant('flip' as const),
        at: fc.nat(body.length - 1),
        byte: fc.integer({ min: 0, max: 255 }),
      }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(body.length - 1), byte: fc.constant(0) }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(body.length - 1),
        byte: fc.constantFrom(0x0d, 0x0a, 0x2d, 0x22, 0x00, 0xff),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations) => {
        let mutated = Buffer.from(body);
        for (const m of mutations) {
          const at = Math.min(m.at, mutated.length - 1);
          if (m.kind === 'flip') mutated[at] = m.byte;
          else if (m.kind === 'cut') mutated = mutated.subarray(0, at);
          else mutated = Buffer.concat([mutated.subarray(0, at), Buffer.from([m.byte]), mutated.subarray(at)]);
        }
        const response = rawRequest(
          stack.apiPort,
          requestBytes({
            path: '/v1/frame-submissions',
            headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID(), 'content-type': contentType },
            body: mutated,
          }),
          { timeoutMs: 20_000 },
        );
        return checked(response, true);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('any Idempotency-Key and Authorization values', async () => {
    // Printable ASCII: control characters are refused by Node's HTTP parser before the app sees them.
    const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
    const headerValue = fc
      .string({ unit: printable, maxLength: 120 })
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    await fc.assert(
      fc.asyncProperty(headerValue, fc.boolean(), async (value, asAuth) => {
        const headers: Record<string, string> = asAuth ? { authorization: value } : { 'idempotency-key': value };
        // A value that happens to be a valid UUID is simply accepted.
        return checked(
          send(JSON.stringify({ agent_slug: 'bot', channel_slug: 'news', date: '20260101' }), png, headers),
          !asAuth,
        );
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('any submission or upload id in the path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 60 }),
        fc.constantFrom('frame-submissions', 'media-uploads'),
        async (id, kind) => {
          const answer = await call(`${stack.apiUrl}/v1/${kind}/${encodeURIComponent(id)}`, {
            headers: { authorization: `Bearer ${key}` },
          });
          requests++;
          tally[String(answer.status)] = (tally[String(answer.status)] ?? 0) + 1;
          // An empty id, or a "." (a dot segment, which the URL parser drops: `/v1/<kind>/.` is
          // `/v1/<kind>/`), hits the list route of frame submissions: 200 (or 404/405 for uploads).
          if ((id === '' || id === '.') && answer.status === 200) return true;
          return (
            answer.status >= 400 && answer.status < 500 && answer.contentType.startsWith('application/problem+json')
          );
        },
      ),
      // The dot segments always run: "." once failed a CI run (seed 1250045692) when drawn by chance.
      {
        numRuns: RUNS,
        examples: [
          ['.', 'frame-submissions'],
          ['..', 'frame-submissions'],
          ['.', 'media-uploads'],
        ],
      },
    );
  }, 120_000);

  it('stays up and bounded, and what it accepted settles', async () => {
    await ensureUp();
    expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
    const rss = rssMiB(stack.api().child.pid!);
    const statuses = await waitForSettled(stack, accepted, 90_000);
    const unsettled = accepted.filter((id) => !['needs_review', 'failed'].includes(statuses.get(id) ?? ''));
    reportFigures('hostile-properties', {
      requests,
      by_status: tally,
      server_errors: Object.entries(tally)
        .filter(([s]) => Number(s) >= 500)
        .reduce((n, [, c]) => n + c, 0),
      accepted: accepted.length,
      crashes,
      unsettled: unsettled.length,
      api_rss_mib: Math.round(rss),
    });
    expect(crashes, 'API crashes').toBe(0);
    expect(unsettled).toEqual([]);
    expect(rss).toBeLessThan(API_RSS_BOUND_MIB);
  }, 120_000);
});
