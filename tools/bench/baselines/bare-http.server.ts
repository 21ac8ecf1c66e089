// Baseline (a), the floor: a bare node:http server that parses the same multipart request
// (busboy, the parser multer uses) and writes the image to disk with the same durability as
// Framedesk's fs storage (temp file, fsync, rename). No auth, no database, no queue.
//   node --import tsx bare-http.server.ts <storage dir> [limit bytes]
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';

const dir = process.argv[2] ?? '.data/bench-bare';
const LIMIT = Number(process.argv[3] ?? 10 * 1024 * 1024);

async function accept(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
  const id = randomBytes(16).toString('hex');
  const parser = busboy({ headers: req.headers, limits: { fileSize: LIMIT, files: 1, fieldSize: 16384 } });
  let metadata: unknown = null;
  let stored: Promise<void> | null = null;
  let tooLarge = false;
  parser.on('field', (name, value) => {
    if (name === 'metadata') metadata = JSON.parse(value);
  });
  parser.on('file', (name, stream) => {
    if (name !== 'image') return void stream.resume();
    const tmp = join(dir, `${id}.part`);
    stream.on('limit', () => (tooLarge = true));
    stored = pipeline(stream, createWriteStream(tmp, { flags: 'wx' })).then(async () => {
      const handle = await open(tmp, 'r');
      await handle.sync().finally(() => handle.close());
      await rename(tmp, join(dir, `${id}.png`));
    });
  });
  await pipeline(req, parser);
  if (stored) await stored;
  if (tooLarge) {
    await rm(join(dir, `${id}.png`), { force: true });
    return { status: 413, body: { code: 'payload_too_large' } };
  }
  if (!stored || !metadata) return { status: 400, body: { code: 'invalid_request' } };
  return { status: 202, body: { id, status: 'received' } };
}

await mkdir(dir, { recursive: true });
const server = createServer((req, res) => {
  accept(req).then(
    ({ status, body }) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    },
    (error: unknown) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'invalid_request', detail: String(error) }));
    },
  );
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
