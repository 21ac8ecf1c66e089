import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler, notFoundHandler } from '../http/problem';
import { workbenchRoutes } from './workbench.routes';

async function serve(dist: string, onMissing?: (dir: string) => void): Promise<{ url: string; server: Server }> {
  const app = express();
  app.use(workbenchRoutes(dist, '/', onMissing));
  app.use(notFoundHandler);
  app.use(errorHandler(() => undefined));
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('workbench static serving', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wb-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>wb</title>');
    await writeFile(join(dir, 'assets/app.js'), 'console.log(1)');
    await writeFile(join(dir, 'assets/big.js'), 'console.log("plain")');
    await writeFile(join(dir, 'assets/big.js.gz'), gzipSync('console.log("zipped")'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves the build, falls back to index.html for client routes, never for API paths', async () => {
    const { url, server } = await serve(dir);
    try {
      expect(await (await fetch(url + '/')).text()).toContain('<title>wb</title>');
      expect(await (await fetch(url + '/channels/news', { headers: { accept: 'text/html' } })).text()).toContain(
        '<title>wb</title>',
      );
      expect((await fetch(url + '/assets/app.js')).headers.get('content-type')).toContain('javascript');
      for (const path of ['/review/nope', '/v1/nope', '/media/x/y']) {
        const res = await fetch(url + path, { headers: { accept: 'text/html' } });
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
    } finally {
      server.close();
    }
  });

  it('sends the precompressed file to a browser that accepts gzip, the plain one otherwise', async () => {
    const { url, server } = await serve(dir);
    try {
      const zipped = await fetch(url + '/assets/big.js', { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      expect(zipped.headers.get('content-type')).toContain('javascript');
      expect(await zipped.text()).toBe('console.log("zipped")'); // fetch inflates it
      const plain = await fetch(url + '/assets/big.js', { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(await plain.text()).toBe('console.log("plain")');
      expect((await fetch(url + '/assets/app.js')).headers.get('content-encoding')).toBeNull();
    } finally {
      server.close();
    }
  });

  it('mounts nothing when there is no build, and says where it looked', async () => {
    const missing: string[] = [];
    const { url, server } = await serve(join(dir, 'missing'), (where) => missing.push(where));
    try {
      expect((await fetch(url + '/')).status).toBe(404);
      expect(missing).toEqual([join(dir, 'missing')]);
    } finally {
      server.close();
    }
  });
});
