// The scoring hook's client against real local HTTP servers: what it does with a redirect and
// with an answer too long to read.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SCORING_ANSWER_BYTES, scoringClient } from './scoring';

const servers: Server[] = [];

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

const request = {
  id: 'frame-1',
  agent: 'agent',
  channel: 'news',
  image: Buffer.from('image bytes'),
  contentType: 'image/webp',
};

describe('scoringClient', () => {
  it('does not follow a redirect: a 3xx is an error and the redirect target sees no request', async () => {
    const seen: string[] = [];
    const target = await serve((req, res) => {
      seen.push(req.method ?? '');
      req.resume();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ scores: { nsfw: 0.1 } }));
    });
    for (const status of [307, 302]) {
      const url = await serve((req, res) => {
        req.resume();
        res.writeHead(status, { Location: target }).end();
      });
      expect(await scoringClient({ url, timeoutMs: 10_000 })(request)).toEqual({ ok: false, reason: 'error' });
    }
    expect(seen).toEqual([]);
  });

  it('reads at most MAX_SCORING_ANSWER_BYTES of an answer: a 10 MB one is malformed, with or without its length', async () => {
    const pad = 'x'.repeat(10 * 1024 * 1024);
    const body = JSON.stringify({ scores: { nsfw: 0.1 }, pad });
    for (const declared of [true, false]) {
      const url = await serve((req, res) => {
        req.resume();
        res.setHeader('Content-Type', 'application/json');
        if (declared) res.setHeader('Content-Length', Buffer.byteLength(body));
        res.end(body);
      });
      expect(await scoringClient({ url, timeoutMs: 30_000 })(request)).toEqual({ ok: false, reason: 'malformed' });
    }
    // An answer within the cap is read as before.
    const small = JSON.stringify({ scores: { nsfw: 0.1 }, pad: 'x'.repeat(MAX_SCORING_ANSWER_BYTES - 100) });
    const url = await serve((req, res) => {
      req.resume();
      res.end(small);
    });
    expect(await scoringClient({ url, timeoutMs: 10_000 })(request)).toEqual({ ok: true, scores: { nsfw: 0.1 } });
  });

  it("a failed answer's body is not read: a 500 with an endless body is an error at once", async () => {
    let closed = false;
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'e');
      const pump = () => {
        while (!closed && res.write(chunk));
        if (!closed) res.once('drain', pump);
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    expect(await scoringClient({ url, timeoutMs: 60_000 })(request)).toEqual({ ok: false, reason: 'error' });
    // The connection is let go of: the server sees it close.
    await expect.poll(() => closed, { timeout: 30_000 }).toBe(true);
  });
});
