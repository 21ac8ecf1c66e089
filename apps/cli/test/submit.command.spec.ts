// `framedesk submit` in-process, against a small fake of the agent API (the real stack is in submit.int.spec.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './in-process';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

let dir: string;
let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let polls = 0;
const sub = (status: string, extra: object = {}) => ({
  id: 'sub_0123456789012345678901',
  status,
  agent_slug: 'bot',
  channel_slug: 'news',
  date: '20260115',
  created_at: '2026-01-15T00:00:00.000Z',
  ...extra,
});

function handle(req: Seen, res: ServerResponse) {
  const send = (status: number, body: unknown) =>
    res
      .writeHead(status, { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json' })
      .end(JSON.stringify(body));
  if (req.headers['authorization'] === 'Bearer bad')
    return send(401, {
      code: 'unauthenticated',
      detail: 'The API key is not valid.',
      status: 401,
      request_id: 'req_1',
    });
  if (req.method === 'POST' && req.url === '/v1/frame-submissions') return send(202, sub('received'));
  if (req.method === 'POST' && req.url === '/v1/media-uploads') {
    return send(201, {
      id: 'upl_1',
      status: 'waiting_for_upload',
      provider: 'vendor_stream',
      upload_url: `${baseUrl}/uploads/basic/upl_1?token=t`,
      upload_protocol: 'basic',
      submission_id: sub('x').id,
      expires_at: '2026-01-15T01:00:00.000Z',
    });
  }
  if (req.method === 'POST' && req.url.startsWith('/uploads/basic/upl_1')) return send(201, {});
  if (req.method === 'GET' && req.url.startsWith('/v1/frame-submissions/'))
    return send(200, sub(++polls >= 3 ? 'needs_review' : 'media_processing'));
  send(404, { code: 'not_found', detail: 'no route' });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'framedesk-submit-'));
  await writeFile(join(dir, 'frame.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  await writeFile(join(dir, 'clip.mp4'), Buffer.alloc(2048, 1));
  await writeFile(join(dir, 'notes.txt'), 'hello');
  server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const req = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body: Buffer.concat(chunks) };
      seen.push(req);
      handle(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { FRAMEDESK_BASE_URL: baseUrl, FRAMEDESK_API_KEY: 'fd_live_x', ...env });

describe('framedesk submit', () => {
  it.each([
    [['submit', 'PNG', '--agent', 'bot']],
    [['submit', 'PNG', '--channel', 'news']],
    [['submit', 'PNG', '--channel', 'news', '--agent', 'bot', '--date', '20260231']],
    [['submit', 'PNG', '--channel', 'Not A Slug', '--agent', 'bot']],
    [['submit', 'TXT', '--channel', 'news', '--agent', 'bot']],
    [['submit', 'MISSING', '--channel', 'news', '--agent', 'bot']],
    [['submit', 'PNG', '--channel', 'news', '--agent', 'bot', '--bogus']],
    [['submit', 'PNG', '--channel', 'news', '--agent', 'bot', '--timeout', 'soon']],
    [['submit']],
  ])('refuses %j with one line and exit 2', async (args) => {
    const before = seen.length;
    const files: Record<string, string> = {
      PNG: join(dir, 'frame.png'),
      TXT: join(dir, 'notes.txt'),
      MISSING: join(dir, 'missing.png'),
    };
    const result = await cli(args.map((a) => files[a] ?? a));
    expect(result.code).toBe(2);
    expect(result.err).toHaveLength(1);
    expect(seen.length).toBe(before);
  });

  it('requires an API key', async () => {
    const result = await cli(['submit', join(dir, 'frame.png'), '--channel', 'news', '--agent', 'bot'], {
      FRAMEDESK_API_KEY: '',
    });
    expect(result).toMatchObject({ code: 2, err: [expect.stringContaining('FRAMEDESK_API_KEY')] });
  });

  it('submits a PNG with the metadata and prints one JSON line', async () => {
    const result = await cli(
      ['submit', join(dir, 'frame.png'), '--channel', 'news', '--date', '20260115', '--title', 'T', '--json'],
      { FRAMEDESK_AGENT: 'bot' },
    );
    expect(result.code).toBe(0);
    expect(result.out).toHaveLength(1);
    expect(JSON.parse(result.out[0]!)).toEqual({ submission: sub('received') });
    const post = seen.findLast((r) => r.url === '/v1/frame-submissions')!;
    expect(post.headers['authorization']).toBe('Bearer fd_live_x');
    expect(post.body.toString()).toContain('{"agent_slug":"bot","channel_slug":"news","date":"20260115","title":"T"}');
  });

  it('takes a video through upload session, basic upload and waiting', async () => {
    polls = 0;
    const result = await cli(['submit', join(dir, 'clip.mp4'), '--channel', 'news', '--agent', 'bot', '--wait']);
    expect(result.code).toBe(0);
    expect(result.out).toEqual(['sub_0123456789012345678901 needs_review']);
    expect(result.err.join('\n')).toContain('created upload upl_1 (basic)');
    const create = seen.findLast((r) => r.url === '/v1/media-uploads')!;
    expect(JSON.parse(create.body.toString())).toMatchObject({
      agent_slug: 'bot',
      channel_slug: 'news',
      media_type: 'video',
      filename: 'clip.mp4',
      content_type: 'video/mp4',
      byte_size: 2048,
    });
    const upload = seen.findLast((r) => r.url.startsWith('/uploads/basic/upl_1'))!;
    expect(upload.headers['authorization']).toBeUndefined();
    expect(upload.body.length).toBeGreaterThan(2048);
  });

  it('reports an API error in one line with its code and exits 1', async () => {
    const result = await cli([
      'submit',
      join(dir, 'frame.png'),
      '--channel',
      'news',
      '--agent',
      'bot',
      '--api-key',
      'bad',
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toEqual(['framedesk: 401 unauthenticated: The API key is not valid. [request req_1]']);
  });

  it('says where it looked when the API does not answer', async () => {
    const result = await cli([
      'submit',
      join(dir, 'frame.png'),
      '--channel',
      'news',
      '--agent',
      'bot',
      '--base-url',
      'http://127.0.0.1:9',
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(/network_error.*is the API running at http:\/\/127\.0\.0\.1:9\?/);
  }, 60_000);
});
