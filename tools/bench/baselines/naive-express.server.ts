// Baseline (b), the naive design: Express + multer (memory storage) + sharp making every
// configured variant inside the request, then writing original and variants to disk.
// It uses libs/media's processImage, so the variants and encoder settings are Framedesk's own,
// but sharp keeps its defaults (threads = cores, cache on), as a first version would.
//   node --import tsx naive-express.server.ts <storage dir> <variant,variant,…>
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import express from 'express';
import multer from 'multer';
import { parseVariantName, type VariantSpec } from '@framedesk/config';
import { processImage } from '@framedesk/media';

const dir = process.argv[2] ?? '.data/bench-naive';
const variants = (process.argv[3] ?? 'public,thumbnail,preview').split(',').map((name) => {
  const spec = parseVariantName(name);
  if (!spec) throw new Error(`unknown variant ${name}`);
  return spec;
}) satisfies VariantSpec[];

await mkdir(dir, { recursive: true });
const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: 10 * 1024 * 1024, fieldSize: 16384 } });
const app = express();
app.post('/v1/frame-submissions', upload.single('image'), async (req, res) => {
  if (!req.file || typeof req.body?.metadata !== 'string')
    return void res.status(400).json({ code: 'invalid_request' });
  JSON.parse(req.body.metadata as string);
  const id = randomBytes(16).toString('hex');
  const processed = await processImage(req.file.buffer, variants);
  await writeFile(join(dir, `${id}.png`), req.file.buffer);
  await Promise.all(processed.variants.map((v) => writeFile(join(dir, `${id}-${v.name}.webp`), v.data)));
  res.status(201).json({ id, status: 'processed' });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: (server.address() as { port: number }).port })}\n`);
});
server.keepAliveTimeout = 5_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
