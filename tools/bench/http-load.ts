import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { percentile } from './stats';

/** A multipart/form-data body as a list of buffers, so big images are sent without copying. */
export interface MultipartBody {
  readonly contentType: string;
  readonly parts: readonly Buffer[];
  readonly length: number;
}

export function multipartBody(
  metadata: Record<string, unknown>,
  image: readonly Buffer[],
  filename = 'frame.png',
): MultipartBody {
  const boundary = `----fdbench${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n` +
      `${JSON.stringify(metadata)}\r\n--${boundary}\r\n` +
      `Content-Disposition: form-data; name="image"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const parts = [head, ...image, tail];
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    parts,
    length: parts.reduce((n, p) => n + p.length, 0),
  };
}

export interface HttpResult {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
  /** Set when the connection failed instead of answering (e.g. reset after a 413). */
  readonly error?: string;
}

export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

/** One POST with a streamed body; resolves with the status, never rejects. */
export function post(
  url: string,
  body: MultipartBody,
  headers: Record<string, string>,
  agent?: Agent,
): Promise<HttpResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: Omit<HttpResult, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, ms: performance.now() - started });
    };
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': body.contentType, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', (error) => done({ status: res.statusCode ?? 0, body: '', error: error.message }));
      },
    );
    req.on('error', (error) => done({ status: 0, body: '', error: error.message }));
    // Write with back-pressure so 16 × 60 MB uploads do not pile up in our own memory.
    const parts = body.parts;
    let index = 0;
    const writeMore = () => {
      while (index < parts.length) {
        const part = parts[index++]!;
        if (!req.write(part)) return void req.once('drain', writeMore);
      }
      req.end();
    };
    writeMore();
  });
}

export interface LoadResult {
  readonly elapsedMs: number;
  readonly requests: number;
  readonly accepted: number;
  readonly acceptedPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Status (or error) → count, so refusals are visible rather than silently counted. */
  readonly outcomes: Record<string, number>;
  readonly firstFailure?: string;
  /** `window`: accepted answers that arrived within the duration / duration; `total`: all / elapsed. */
  readonly estimator: 'window' | 'total';
}

/**
 * Closed-loop load: `concurrency` clients each send a request, wait for the answer and send the
 * next, until `durationMs` has passed. Latency is measured for accepted requests only.
 */
export async function closedLoop(options: {
  concurrency: number;
  durationMs: number;
  send: (n: number) => Promise<HttpResult>;
  accepted: (result: HttpResult) => boolean;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let inWindow = 0;
  const outcomes: Record<string, number> = {};
  let requests = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const result = await options.send(requests++);
      const key = result.error ? `error:${result.error}` : String(result.status);
      outcomes[key] = (outcomes[key] ?? 0) + 1;
      if (options.accepted(result)) {
        latencies.push(result.ms);
        if (performance.now() <= deadline) inWindow++;
      } else firstFailure ??= `${key} ${result.body.slice(0, 300)}`;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const elapsedMs = performance.now() - started;
  // Answers that arrive after the deadline came from a tapering load; count them only when the
  // system is so slow that fewer than one round of answers fit in the window.
  const estimator = inWindow >= options.concurrency ? 'window' : 'total';
  return {
    elapsedMs,
    requests,
    accepted: latencies.length,
    acceptedPerSecond:
      estimator === 'window' ? (inWindow / options.durationMs) * 1000 : (latencies.length / elapsedMs) * 1000,
    estimator,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    outcomes,
    ...(firstFailure ? { firstFailure } : {}),
  };
}
