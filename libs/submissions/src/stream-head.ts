import { Readable } from 'node:stream';

/**
 * Reads the first `bytes` of `source` (fewer if it ends sooner) without losing them: `body`
 * yields the head again followed by the rest, and carries the source's errors (a dropped
 * connection stays an error). Nothing downstream sees a byte before the caller checked `head`.
 */
export async function peekHead(source: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let got = 0;
  let ended = false;
  while (got < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    chunks.push(chunk);
    got += chunk.length;
  }
  const first = Buffer.concat(chunks);
  async function* replay() {
    if (first.length > 0) yield first;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head: first.subarray(0, bytes), body: Readable.from(replay(), { objectMode: false }) };
}
