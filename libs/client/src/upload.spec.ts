import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from './client';
import {
  type FakeServer,
  parseMultipart,
  problem,
  type RecordedRequest,
  sendJson,
  startFakeServer,
} from './testing/fake-server';
import type { UploadProgress } from './upload';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) & 0xff);

function clientFor(url: string, sleeps: number[] = []) {
  return createClient({ baseUrl: url, apiKey: 'fd_live_secret', retry: { sleep: async (ms) => void sleeps.push(ms) } });
}

interface TusState {
  received: Buffer;
  length?: number;
  dropped: boolean;
}

/**
 * A tus 1.0 server keeping one upload. `dropAt`: the first PATCH that crosses this offset keeps
 * the bytes up to it and then loses its connection, as a flaky network would.
 */
async function startTus(
  options: {
    dropAt?: number;
    exists?: boolean;
    length?: number;
    startOffset?: Buffer;
    closeWhenComplete?: boolean;
    /** The first this many HEADs find the upload locked (423, as while a cut PATCH's lock lingers). */
    lockedHeads?: number;
  } = {},
) {
  let lockedHeads = options.lockedHeads ?? 0;
  const state: TusState = { received: options.startOffset ?? Buffer.alloc(0), length: options.length, dropped: false };
  let exists = options.exists ?? true;
  server = await startFakeServer(
    (req, res, raw) => {
      if (req.headers['tus-resumable'] !== '1.0.0') return sendJson(res, 412, problem(412, 'tus_version'));
      const path = req.url.split('?')[0];
      if (req.method === 'POST') {
        exists = true;
        state.length = Number(req.headers['upload-length']);
        res.writeHead(201, { Location: '/files/created-1', 'Tus-Resumable': '1.0.0' });
        return void res.end();
      }
      if (!exists || (path !== '/uploads/tus/upl_1' && path !== '/files/created-1'))
        return void res.writeHead(404).end();
      // Like the local provider: a complete session answers 409 (HEAD has no body for a code).
      const complete = options.closeWhenComplete && state.received.length === state.length;
      if (complete) return sendJson(res, 409, problem(409, 'upload_already_completed'));
      if (req.method === 'HEAD' && lockedHeads > 0) {
        lockedHeads--;
        return void res.writeHead(423, { 'Retry-After': '1', 'Tus-Resumable': '1.0.0' }).end();
      }
      if (req.method === 'HEAD') {
        res.writeHead(200, {
          'Upload-Offset': String(state.received.length),
          'Upload-Length': String(state.length ?? ''),
          'Tus-Resumable': '1.0.0',
        });
        return void res.end();
      }
      if (req.method !== 'PATCH') return void res.writeHead(405).end();
      if (req.headers['content-type'] !== 'application/offset+octet-stream') return void res.writeHead(415).end();
      if (Number(req.headers['upload-offset']) !== state.received.length) {
        raw.resume();
        return void res.writeHead(409, { 'Tus-Resumable': '1.0.0' }).end('offset mismatch');
      }
      raw.on('data', (chunk: Buffer) => {
        if (options.dropAt !== undefined && !state.dropped && state.received.length + chunk.length >= options.dropAt) {
          state.received = Buffer.concat([state.received, chunk.subarray(0, options.dropAt - state.received.length)]);
          state.dropped = true;
          raw.socket.destroy();
          return;
        }
        state.received = Buffer.concat([state.received, chunk]);
      });
      raw.on('end', () => {
        if (raw.socket.destroyed) return;
        res.writeHead(204, { 'Upload-Offset': String(state.received.length), 'Tus-Resumable': '1.0.0' });
        res.end();
      });
    },
    (raw) => raw.method === 'PATCH',
  );
  return { state, url: `${server.url}/uploads/tus/upl_1?token=tok123`, requests: server.requests };
}

const summary = (requests: RecordedRequest[]) =>
  requests.map((r) => `${r.method} ${r.headers['upload-offset'] ?? ''}`.trim());

describe('uploadVideo, basic', () => {
  it('posts one multipart request with field file, and never the API key', async () => {
    server = await startFakeServer((_req, res) => sendJson(res, 201, { ok: true }));
    const data = bytes(5000);
    const progress: UploadProgress[] = [];
    const result = await clientFor(server.url).uploadVideo(
      { upload_url: `${server.url}/uploads/basic/upl_1?token=t`, upload_protocol: 'basic' },
      data,
      {
        filename: 'clip.mp4',
        contentType: 'video/mp4',
        onProgress: (p) => progress.push(p),
      },
    );
    expect(result).toMatchObject({ protocol: 'basic', bytesTotal: 5000 });
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/uploads/basic/upl_1?token=t' });
    expect(req!.headers['authorization']).toBeUndefined();
    const file = parseMultipart(req!).get('file')!;
    expect(file.headers).toMatch(/filename="clip.mp4"/);
    expect(file.headers).toMatch(/content-type: video\/mp4/i);
    expect(Buffer.compare(file.data, Buffer.from(data))).toBe(0);
    expect(progress.at(-1)).toEqual({ bytesSent: 5000, bytesTotal: 5000 });
  });

  it('treats upload_already_completed after a broken first attempt as success', async () => {
    let calls = 0;
    server = await startFakeServer((_req, res) =>
      calls++ === 0 ? void res.socket?.destroy() : sendJson(res, 409, problem(409, 'upload_already_completed')),
    );
    await expect(
      clientFor(server.url).uploadVideo({ upload_url: `${server.url}/u`, upload_protocol: 'basic' }, bytes(10)),
    ).resolves.toMatchObject({ protocol: 'basic' });
    expect(server.requests).toHaveLength(2);
  });

  it('passes on upload_already_completed on a first attempt, and 410 upload_expired', async () => {
    server = await startFakeServer((req, res) =>
      req.url === '/done'
        ? sendJson(res, 409, problem(409, 'upload_already_completed'))
        : sendJson(res, 410, problem(410, 'upload_expired')),
    );
    const client = clientFor(server.url);
    await expect(
      client.uploadVideo({ upload_url: `${server.url}/done`, upload_protocol: 'basic' }, bytes(10)),
    ).rejects.toMatchObject({ code: 'upload_already_completed' });
    await expect(
      client.uploadVideo({ upload_url: `${server.url}/late`, upload_protocol: 'basic' }, bytes(10)),
    ).rejects.toMatchObject({ status: 410, code: 'upload_expired' });
  });
});

describe('uploadVideo, tus', () => {
  it('finds the offset with HEAD and sends the bytes in PATCH chunks', async () => {
    const tus = await startTus({ length: 250_000 });
    const data = bytes(250_000);
    const progress: number[] = [];
    const result = await clientFor(server!.url).uploadVideo({ upload_url: tus.url, upload_protocol: 'tus' }, data, {
      chunkSize: 100_000,
      onProgress: (p) => progress.push(p.bytesSent),
    });
    expect(result).toEqual({ protocol: 'tus', bytesTotal: 250_000, url: tus.url });
    expect(summary(tus.requests)).toEqual(['HEAD', 'PATCH 0', 'PATCH 100000', 'PATCH 200000']);
    expect(Buffer.compare(tus.state.received, Buffer.from(data))).toBe(0);
    expect(progress).toEqual([0, 100_000, 200_000, 250_000]);
    expect(tus.requests.every((r) => r.headers['authorization'] === undefined && r.url.endsWith('token=tok123'))).toBe(
      true,
    );
  });

  it('resumes a dropped PATCH from the offset the server kept', async () => {
    const tus = await startTus({ length: 350_000, dropAt: 150_000 });
    const data = bytes(350_000);
    const sleeps: number[] = [];
    const progress: number[] = [];
    await clientFor(server!.url, sleeps).uploadVideo({ upload_url: tus.url, upload_protocol: 'tus' }, data, {
      chunkSize: 100_000,
      onProgress: (p) => progress.push(p.bytesSent),
    });
    expect(tus.state.dropped).toBe(true);
    expect(summary(tus.requests)).toEqual(['HEAD', 'PATCH 0', 'PATCH 100000', 'HEAD', 'PATCH 150000', 'PATCH 250000']);
    expect(Buffer.compare(tus.state.received, Buffer.from(data))).toBe(0);
    expect(sleeps).toHaveLength(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('counts a PATCH whose bytes all landed before the connection broke as done', async () => {
    const tus = await startTus({ length: 1000, dropAt: 1000, closeWhenComplete: true });
    const data = bytes(1000);
    await expect(
      clientFor(server!.url).uploadVideo({ upload_url: tus.url, upload_protocol: 'tus' }, data),
    ).resolves.toMatchObject({ bytesTotal: 1000 });
    expect(summary(tus.requests)).toEqual(['HEAD', 'PATCH 0', 'HEAD']);
    expect(Buffer.compare(tus.state.received, Buffer.from(data))).toBe(0);
  });

  it('waits out a locked upload (HEAD 423, Retry-After) and goes on from its offset; 409 alone means complete', async () => {
    const data = bytes(300_000);
    const tus = await startTus({ length: 300_000, startOffset: Buffer.from(data.subarray(0, 1000)), lockedHeads: 2 });
    const sleeps: number[] = [];
    await clientFor(server!.url, sleeps).uploadVideo({ upload_url: tus.url, upload_protocol: 'tus' }, data, {
      chunkSize: 200_000,
    });
    expect(summary(tus.requests)).toEqual(['HEAD', 'HEAD', 'HEAD', 'PATCH 1000', 'PATCH 201000']);
    expect(sleeps.every((ms) => ms >= 1000)).toBe(true);
    expect(Buffer.compare(tus.state.received, Buffer.from(data))).toBe(0);
  });

  it('refuses to upload again to a complete session', async () => {
    const data = bytes(100);
    await startTus({ length: 100, startOffset: Buffer.from(data), closeWhenComplete: true });
    await expect(
      clientFor(server!.url).uploadVideo(
        { upload_url: `${server!.url}/uploads/tus/upl_1`, upload_protocol: 'tus' },
        data,
      ),
    ).rejects.toMatchObject({ code: 'upload_already_completed' });
  });

  it('continues an upload an earlier call left half done', async () => {
    const data = bytes(300_000);
    const tus = await startTus({ length: 300_000, startOffset: Buffer.from(data.subarray(0, 123_456)) });
    await clientFor(server!.url).uploadVideo({ upload_url: tus.url, upload_protocol: 'tus' }, data, {
      chunkSize: 200_000,
    });
    expect(summary(tus.requests)).toEqual(['HEAD', 'PATCH 123456']);
    expect(Buffer.compare(tus.state.received, Buffer.from(data))).toBe(0);
  });

  it('creates the upload when upload_url is a tus creation endpoint, keeping its token', async () => {
    const tus = await startTus({ exists: false });
    const data = bytes(1000);
    const result = await clientFor(server!.url).uploadVideo({ upload_url: tus.url, upload_protocol: 'tus' }, data, {
      filename: 'clip.mp4',
      contentType: 'video/mp4',
    });
    expect(summary(tus.requests)).toEqual(['HEAD', 'POST', 'PATCH 0']);
    const creation = tus.requests[1]!;
    expect(creation.headers['upload-length']).toBe('1000');
    expect(creation.headers['upload-metadata']).toBe(`filename ${btoa('clip.mp4')},filetype ${btoa('video/mp4')}`);
    expect(tus.requests[2]!.url).toBe('/files/created-1?token=tok123');
    expect(result.url).toBe(`${server!.url}/files/created-1?token=tok123`);
    expect(Buffer.compare(tus.state.received, Buffer.from(data))).toBe(0);
  });

  it('reports a gone session (HEAD 410) as upload_expired', async () => {
    server = await startFakeServer((_req, res) => void res.writeHead(410).end());
    await expect(
      clientFor(server.url).uploadVideo({ upload_url: `${server.url}/t`, upload_protocol: 'tus' }, bytes(10)),
    ).rejects.toMatchObject({ status: 410, code: 'upload_expired' });
  });

  it('stops after the attempts when every PATCH breaks', async () => {
    server = await startFakeServer(
      (req, res, raw) => {
        if (req.method === 'HEAD')
          return void res.writeHead(200, { 'Upload-Offset': '0', 'Tus-Resumable': '1.0.0' }).end();
        raw.socket.destroy();
      },
      (raw) => raw.method === 'PATCH',
    );
    await expect(
      clientFor(server.url).uploadVideo({ upload_url: `${server.url}/t`, upload_protocol: 'tus' }, bytes(10)),
    ).rejects.toMatchObject({ code: 'network_error' });
    expect(server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(5);
  });
});
