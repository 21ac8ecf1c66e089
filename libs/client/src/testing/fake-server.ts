// A scriptable HTTP server for the client's unit tests (Node only; never exported by index.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export type FakeHandler = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface FakeServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * `handler` sees each request with its whole body read, unless `streaming` is set for that
 * request (then `body` is empty and the handler reads `raw` itself, e.g. to drop the connection).
 */
export async function startFakeServer(
  handler: FakeHandler,
  streaming: (req: IncomingMessage) => boolean = () => false,
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((raw, res) => {
    const finish = (body: Buffer) => {
      const recorded = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res, raw)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    };
    if (streaming(raw)) return finish(Buffer.alloc(0));
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => finish(Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const problem = status >= 400;
  res.writeHead(status, { 'Content-Type': problem ? 'application/problem+json' : 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function problem(status: number, code: string, detail = code, extra: Record<string, unknown> = {}) {
  return {
    type: `https://framedesk.dev/problems/${code}`,
    title: code,
    status,
    detail,
    code,
    request_id: `req_${code}`,
    ...extra,
  };
}

/** Splits a multipart body into its parts (enough for the tests: no nested multiparts). */
export function parseMultipart(req: RecordedRequest): Map<string, { headers: string; data: Buffer }> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(req.headers['content-type'] ?? '');
  const delimiter = Buffer.from(`--${boundary?.[1] ?? boundary?.[2] ?? ''}`);
  const parts = new Map<string, { headers: string; data: Buffer }>();
  let at = req.body.indexOf(delimiter);
  while (at !== -1) {
    const next = req.body.indexOf(delimiter, at + delimiter.length);
    if (next === -1) break;
    const part = req.body.subarray(at + delimiter.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString();
    const name = /name="([^"]+)"/.exec(headers)?.[1] ?? '';
    parts.set(name, { headers, data: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}
