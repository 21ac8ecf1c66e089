import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCors } from './cors';

describe('agentCors', () => {
  let url = '';
  let close: () => void;
  beforeAll(async () => {
    const app = express();
    app.use(agentCors('https://app.example, https://other.example'));
    app.all('/x', (_req, res) => void res.json({ ok: true }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    close = () => server.close();
  });
  afterAll(() => close());

  const preflight = (origin: string) =>
    fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });

  it('answers preflights from a configured origin', async () => {
    const response = await preflight('https://app.example');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('sends nothing to other origins', async () => {
    const response = await fetch(url, { headers: { origin: 'https://evil.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('stays silent when no origin is configured', async () => {
    const app = express();
    app.use(agentCors(''));
    app.get('/y', (_req, res) => void res.json({}));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/y`, {
      headers: { origin: 'https://app.example' },
    });
    server.close();
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
