// Byte-exact HTTP for requests no well-behaved client would send (broken multipart, lying
// headers), and /proc readings of the processes under test.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

export interface RawResponse {
  /** 0 when the server closed or reset the connection without an answer, or on time-out. */
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly timedOut: boolean;
  readonly error?: string;
}

function parseResponse(
  data: Buffer,
): { status: number; headers: Record<string, string>; body: Buffer; complete: boolean } | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(end + 4);
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return { status, headers, body: rest.subarray(0, length), complete: rest.length >= length };
  }
  if (headers['transfer-encoding']?.includes('chunked')) {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return { status, headers, body: Buffer.concat(chunks), complete: false };
      const size = parseInt(rest.subarray(at, lineEnd).toString(), 16);
      if (size === 0) return { status, headers, body: Buffer.concat(chunks), complete: true };
      if (rest.length < lineEnd + 2 + size + 2)
        return { status, headers, body: Buffer.concat(chunks), complete: false };
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  return { status, headers, body: rest, complete: false };
}

export interface RawOptions {
  readonly timeoutMs?: number;
  /** Pause between chunks (a slow client). */
  readonly chunkDelayMs?: number;
  /** Hang up this long after the last chunk was written (a client that goes away mid-body). */
  readonly hangUpAfterMs?: number;
}

/**
 * Writes `request` (bytes, or chunks written one after another) to the server and reads one
 * response. A server may answer early and close while we still write: the answer still counts.
 */
export function rawRequest(port: number, request: Buffer | Buffer[], options: RawOptions = {}): Promise<RawResponse> {
  const chunks = Array.isArray(request) ? request : [request];
  return new Promise((resolveResponse) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    let writeError: string | undefined;
    const finish = (timedOut: boolean, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(data);
      resolveResponse({
        status: parsed?.status ?? 0,
        headers: parsed?.headers ?? {},
        body: parsed?.body ?? Buffer.alloc(0),
        timedOut,
        ...(error || writeError ? { error: error ?? writeError } : {}),
      });
    };
    const timer = setTimeout(() => finish(true, 'timed out'), options.timeoutMs ?? 20_000);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (parseResponse(data)?.complete) finish(false);
    });
    socket.on('end', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('error', (error) => {
      // EPIPE/ECONNRESET after an early answer: keep reading what arrived.
      writeError = error.message;
      if (parseResponse(data)?.complete) finish(false);
    });
    const writeAll = async () => {
      for (const chunk of chunks) {
        if (settled || socket.destroyed) return;
        const ok = socket.write(chunk);
        if (!ok) await new Promise<void>((r) => socket.once('drain', () => r()).once('close', () => r()));
        if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
      }
      if (options.hangUpAfterMs !== undefined) setTimeout(() => finish(false, 'hung up'), options.hangUpAfterMs);
    };
    socket.on('connect', () => void writeAll());
  });
}

export interface Part {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
  readonly body: Buffer | string;
  /** Replaces the generated part headers entirely. */
  readonly rawHeaders?: string;
}

/** A multipart/form-data body; each piece can be broken on purpose by the caller. */
export function multipartBody(
  parts: readonly Part[],
  boundary = `----fdrel${randomBytes(8).toString('hex')}`,
): { body: Buffer; contentType: string; boundary: string } {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const headers =
      part.rawHeaders ??
      [
        `Content-Disposition: form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`,
        ...(part.contentType ? [`Content-Type: ${part.contentType}`] : []),
      ].join('\r\n');
    pieces.push(
      Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`, 'latin1'),
      Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body),
      Buffer.from('\r\n'),
    );
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}`, boundary };
}

export interface RequestBytes {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: Buffer;
  /** Omit Content-Length (e.g. to send a chunked or endless body yourself). */
  readonly noContentLength?: boolean;
}

/** The head (and body) of an HTTP/1.1 request, as bytes. */
export function requestBytes(request: RequestBytes): Buffer {
  const headers: Record<string, string> = { host: '127.0.0.1', connection: 'close', ...request.headers };
  if (
    request.body &&
    !request.noContentLength &&
    !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')
  ) {
    headers['content-length'] = String(request.body.length);
  }
  const head = `${request.method ?? 'POST'} ${request.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), request.body ?? Buffer.alloc(0)]);
}

/** Resident memory of a process, in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Open file descriptors (sockets, files) of a process. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}
