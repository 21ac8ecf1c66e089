import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from './client';
import { FramedeskError } from './errors';
import {
  type FakeHandler,
  type FakeServer,
  parseMultipart,
  problem,
  sendJson,
  startFakeServer,
} from './testing/fake-server';
import type { Submission } from './types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const metadata = { agent_slug: 'demo-agent', channel_slug: 'demo', date: '20260115', title: 'Hello' };
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const submission = (status = 'received'): Submission =>
  ({
    id: 'sub_0123456789012345678901',
    status,
    agent_slug: 'demo-agent',
    channel_slug: 'demo',
    date: '20260115',
    created_at: '2026-01-15T00:00:00.000Z',
  }) as Submission;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client on a fake server whose sleeps are recorded instead of waited. */
async function setup(handler: FakeHandler, options: Partial<ClientOptions> = {}) {
  server = await startFakeServer(handler);
  const sleeps: number[] = [];
  const client = createClient({
    baseUrl: server.url,
    apiKey: 'fd_live_test',
    ...options,
    retry: { sleep: async (ms) => void sleeps.push(ms), ...options.retry },
  });
  return { client, sleeps, requests: server.requests };
}

/** Answers with `responses` in turn, then with the last one forever. */
function sequence(
  ...responses: ((res: Parameters<FakeHandler>[1], req: Parameters<FakeHandler>[0]) => void)[]
): FakeHandler {
  let i = 0;
  return (req, res) => responses[Math.min(i++, responses.length - 1)]!(res, req);
}

describe('submitFrame', () => {
  it('posts metadata (JSON) and image (PNG) parts with the key and a UUID Idempotency-Key, and returns the 202 body', async () => {
    const { client, requests } = await setup((_req, res) => sendJson(res, 202, submission()));
    const result = await client.submitFrame({ metadata, image: png });
    expect(result).toEqual(submission());
    const [req] = requests;
    expect(req).toMatchObject({ method: 'POST', url: '/v1/frame-submissions' });
    expect(req!.headers['authorization']).toBe('Bearer fd_live_test');
    expect(req!.headers['idempotency-key']).toMatch(UUID);
    const parts = parseMultipart(req!);
    expect(JSON.parse(parts.get('metadata')!.data.toString())).toEqual(metadata);
    expect(parts.get('metadata')!.headers).toMatch(/content-type: application\/json/i);
    expect(parts.get('image')!.headers).toMatch(/content-type: image\/png/i);
    expect(Buffer.compare(parts.get('image')!.data, Buffer.from(png))).toBe(0);
  });

  it('accepts a base URL ending in /v1 or a slash', async () => {
    const { requests } = await setup((_req, res) => sendJson(res, 202, submission()));
    await createClient({ baseUrl: `${server!.url}/v1/`, apiKey: 'k' }).submitFrame({ metadata, image: png });
    expect(requests[0]!.url).toBe('/v1/frame-submissions');
  });

  it('uses a new key per call, and the caller’s own key when given', async () => {
    const { client, requests } = await setup((_req, res) => sendJson(res, 202, submission()));
    await client.submitFrame({ metadata, image: png });
    await client.submitFrame({ metadata, image: png });
    await client.submitFrame({ metadata, image: png }, { idempotencyKey: '5f0c3a52-4f3e-4a51-9d3c-1b2e3f4a5b6c' });
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('5f0c3a52-4f3e-4a51-9d3c-1b2e3f4a5b6c');
  });
});

describe('retries', () => {
  it('retries 503 and 429 honouring Retry-After, reusing the same Idempotency-Key and body', async () => {
    const { client, sleeps, requests } = await setup(
      sequence(
        (res) => sendJson(res, 503, problem(503, 'service_unavailable'), { 'Retry-After': '2' }),
        (res) => sendJson(res, 429, problem(429, 'rate_limited'), { 'Retry-After': '7' }),
        (res) => sendJson(res, 202, submission()),
      ),
    );
    await expect(client.submitFrame({ metadata, image: png })).resolves.toEqual(submission());
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(parseMultipart(requests[2]!).get('image')!.data.length).toBe(png.length);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(sleeps[1]).toBeGreaterThanOrEqual(7000);
    expect(sleeps[1]).toBeLessThan(8000);
  });

  it('accepts Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    const { client, sleeps } = await setup(
      sequence(
        (res) => sendJson(res, 503, problem(503, 'service_unavailable'), { 'Retry-After': at }),
        (res) => sendJson(res, 202, submission()),
      ),
    );
    await client.submitFrame({ metadata, image: png });
    expect(sleeps[0]).toBeGreaterThan(20_000);
  });

  it('retries 409 idempotency_key_in_use with the same key', async () => {
    const { client, requests } = await setup(
      sequence(
        (res) => sendJson(res, 409, problem(409, 'idempotency_key_in_use'), { 'Retry-After': '1' }),
        (res) => sendJson(res, 202, submission()),
      ),
    );
    await client.submitFrame({ metadata, image: png });
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers['idempotency-key']).toBe(requests[1]!.headers['idempotency-key']);
  });

  it('does not retry an error a retry cannot fix', async () => {
    const { client, requests } = await setup((_req, res) => sendJson(res, 409, problem(409, 'invalid_transition')));
    await expect(client.submitFrame({ metadata, image: png })).rejects.toMatchObject({
      status: 409,
      code: 'invalid_transition',
    });
    expect(requests).toHaveLength(1);
  });

  it('gives up after the configured attempts with the last error', async () => {
    const { client, requests, sleeps } = await setup(
      (_req, res) => sendJson(res, 503, problem(503, 'service_unavailable')),
      { retry: { attempts: 3 } },
    );
    await expect(client.submitFrame({ metadata, image: png })).rejects.toMatchObject({
      status: 503,
      code: 'service_unavailable',
    });
    expect(requests).toHaveLength(3);
    // Back-off grows: equal jitter keeps each step within [step/2, step].
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(125);
    expect(sleeps[0]).toBeLessThanOrEqual(250);
    expect(sleeps[1]).toBeGreaterThanOrEqual(250);
    expect(sleeps[1]).toBeLessThanOrEqual(500);
  });

  it('throws at once when Retry-After is longer than it is willing to wait', async () => {
    const { client, requests } = await setup((_req, res) =>
      sendJson(res, 429, problem(429, 'rate_limited'), { 'Retry-After': '3600' }),
    );
    const error = await client.submitFrame({ metadata, image: png }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 3_600_000 });
    expect(requests).toHaveLength(1);
  });

  it('retries a dropped connection with the same key', async () => {
    const { client, requests } = await setup(
      sequence(
        (res) => res.socket?.destroy(),
        (res) => sendJson(res, 202, submission()),
      ),
    );
    await expect(client.submitFrame({ metadata, image: png })).resolves.toEqual(submission());
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers['idempotency-key']).toBe(requests[1]!.headers['idempotency-key']);
  });

  it('reports network_error when no answer ever comes', async () => {
    const { client, requests } = await setup((_req, res) => void res.socket?.destroy(), { retry: { attempts: 2 } });
    await expect(client.getSubmission('sub_x')).rejects.toMatchObject({ status: 0, code: 'network_error' });
    expect(requests).toHaveLength(2);
  });
});

describe('error mapping', () => {
  it('turns problem+json into a FramedeskError with every field', async () => {
    const body = problem(422, 'validation_failed', 'The metadata is invalid.', {
      errors: [{ pointer: '/metadata/date', detail: 'must be a real YYYYMMDD date' }],
    });
    const { client } = await setup((_req, res) => sendJson(res, 422, body));
    const error = await client.submitFrame({ metadata, image: png }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FramedeskError);
    expect(error).toMatchObject({
      status: 422,
      code: 'validation_failed',
      detail: 'The metadata is invalid.',
      errors: [{ pointer: '/metadata/date', detail: 'must be a real YYYYMMDD date' }],
      requestId: 'req_validation_failed',
    });
    expect((error as Error).message).toContain('/metadata/date must be a real YYYYMMDD date');
  });

  it('maps a non-JSON answer to http_<status>', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    await expect(client.getSubmission('sub_x')).rejects.toMatchObject({
      status: 502,
      code: 'http_502',
      detail: '<html>Bad gateway</html>',
    });
  });
});

describe('reading', () => {
  it('gets a submission and an upload by id', async () => {
    const { client, requests } = await setup((req, res) =>
      sendJson(
        res,
        200,
        req.url.includes('media-uploads') ? { id: 'upl_1', status: 'waiting_for_upload' } : submission('needs_review'),
      ),
    );
    expect((await client.getSubmission('sub_0123456789012345678901')).status).toBe('needs_review');
    expect((await client.getUpload('upl_1')).id).toBe('upl_1');
    expect(requests.map((r) => [r.method, r.url])).toEqual([
      ['GET', '/v1/frame-submissions/sub_0123456789012345678901'],
      ['GET', '/v1/media-uploads/upl_1'],
    ]);
    expect(requests.every((r) => r.headers['idempotency-key'] === undefined)).toBe(true);
  });

  it('creates a video upload with a JSON body', async () => {
    const { client, requests } = await setup((_req, res) =>
      sendJson(res, 201, { id: 'upl_1', status: 'waiting_for_upload' }),
    );
    const request = {
      agent_slug: 'a',
      channel_slug: 'c',
      media_type: 'video',
      filename: 'clip.mp4',
      content_type: 'video/mp4',
      byte_size: 10,
    } as const;
    await client.createVideoUpload(request);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/v1/media-uploads' });
    expect(requests[0]!.headers['content-type']).toBe('application/json');
    expect(requests[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(JSON.parse(requests[0]!.body.toString())).toEqual(request);
  });

  it('lists every page by cursor with the filters', async () => {
    const pages: Record<string, { data: Submission[]; has_more: boolean; next_cursor: string | null }> = {
      '': { data: [submission(), submission()], has_more: true, next_cursor: 'c1' },
      c1: { data: [submission()], has_more: true, next_cursor: 'c2' },
      c2: { data: [], has_more: false, next_cursor: null },
    };
    const { client, requests } = await setup((req, res) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor') ?? '';
      sendJson(res, 200, pages[cursor]);
    });
    const seen: Submission[] = [];
    for await (const s of client.listSubmissions({ channel_slug: 'demo', status: 'received' })) seen.push(s);
    expect(seen).toHaveLength(3);
    expect(requests.map((r) => r.url)).toEqual([
      '/v1/frame-submissions?channel_slug=demo&status=received',
      '/v1/frame-submissions?channel_slug=demo&status=received&cursor=c1',
      '/v1/frame-submissions?channel_slug=demo&status=received&cursor=c2',
    ]);
  });
});

describe('waitForStatus', () => {
  it('polls with growing intervals until the status is reached', async () => {
    const { client, sleeps, requests } = await setup(
      sequence(
        (res) => sendJson(res, 200, submission('received')),
        (res) => sendJson(res, 200, submission('media_processing')),
        (res) => sendJson(res, 200, submission('media_processing')),
        (res) => sendJson(res, 200, submission('needs_review')),
      ),
    );
    const result = await client.waitForStatus('sub_0123456789012345678901', ['needs_review'], { intervalMs: 100 });
    expect(result.status).toBe('needs_review');
    expect(requests).toHaveLength(4);
    expect(sleeps).toEqual([100, 150, 225]);
  });

  it('rejects with unexpected_status on a final status it was not waiting for', async () => {
    const { client } = await setup((_req, res) =>
      sendJson(res, 200, { ...submission('failed'), failure: { code: 'invalid_image', message: 'x' } }),
    );
    await expect(client.waitForStatus('sub_0123456789012345678901', ['needs_review'])).rejects.toMatchObject({
      code: 'unexpected_status',
    });
  });

  it('polls an upload for an upl_ id, and times out with the last status', async () => {
    const { client, requests } = await setup(
      (_req, res) => sendJson(res, 200, { id: 'upl_1', status: 'waiting_for_upload' }),
      {
        retry: { sleep: () => new Promise((r) => setTimeout(r, 5)) },
      },
    );
    const error = await client.waitForStatus('upl_1', ['needs_review'], { timeoutMs: 30 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', body: { status: 'waiting_for_upload' } });
    expect(requests[0]!.url).toBe('/v1/media-uploads/upl_1');
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    const { client } = await setup((_req, res) => sendJson(res, 200, submission('received')), {
      retry: {
        sleep: async () => {
          controller.abort(new Error('stopped by caller'));
          throw controller.signal.reason;
        },
      },
    });
    await expect(
      client.waitForStatus('sub_0123456789012345678901', ['needs_review'], { signal: controller.signal }),
    ).rejects.toThrow('stopped by caller');
  });
});
