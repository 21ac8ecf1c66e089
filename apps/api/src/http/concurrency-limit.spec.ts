// concurrencyLimit and clientGone in a real Express app over HTTP (the Team view's and the
// simulation's limit): places are counted until the answer is sent or the client goes away.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientGone, concurrencyLimit } from './concurrency-limit';
import { errorHandler } from './problem';

describe('concurrencyLimit', () => {
  let base: string;
  let close: () => Promise<void>;
  const waiting: (() => void)[] = [];
  const signals: AbortSignal[] = [];

  beforeAll(async () => {
    const app = express();
    app.get('/slow', concurrencyLimit(2, 'slow reads (TEST)'), async (_req, res) => {
      const signal = clientGone(res);
      signals.push(signal);
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (!signal.aborted) res.json({ ok: true });
    });
    app.use(errorHandler(() => undefined));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
  });
  afterAll(() => close?.());

  it('answers 503 busy with Retry-After beyond the limit; a finished or abandoned request gives its place back', async () => {
    const first = fetch(`${base}/slow`);
    const gone = new AbortController();
    const second = fetch(`${base}/slow`, { signal: gone.signal }).catch(() => 'aborted');
    await expect.poll(() => waiting.length, { timeout: 30_000 }).toBe(2);
    const refused = await fetch(`${base}/slow`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'busy', status: 503 });
    // The second client goes away: its place comes back, and its work sees the signal.
    gone.abort();
    expect(await second).toBe('aborted');
    await expect.poll(() => signals[1]?.aborted, { timeout: 30_000 }).toBe(true);
    const third = fetch(`${base}/slow`);
    await expect.poll(() => waiting.length, { timeout: 30_000 }).toBe(3);
    waiting.forEach((resolve) => resolve());
    expect((await first).status).toBe(200);
    expect((await third).status).toBe(200);
    expect(signals.map((s) => s.aborted)).toEqual([false, true, false]);
  });
});
