import { open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '@framedesk/domain';
import { VIDEO_SNIFF_BYTES } from '@framedesk/media';

/** A basic-upload spool file older than this was left by a crash. */
const BASIC_LEFTOVER_MS = 3600_000;

/** Fails past `limit` bytes, before writing them. */
function limiter(limit: number) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit)
        return callback(
          new DomainError('payload_too_large', 'The upload is larger than the byte_size declared for this session.'),
        );
      callback(null, chunk);
    },
  });
}

export async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/**
 * Streams `body` into `path` through `limit`. The file is opened before the first byte and
 * closed before this returns, even on error, so a caller's `rm` never races a lazy open.
 */
export async function writeLimited(path: string, flags: 'a' | 'wx', body: Readable, limit: number): Promise<void> {
  const out = (await open(path, flags)).createWriteStream();
  try {
    await pipeline(body, limiter(limit), out);
  } finally {
    // The stream closes its file handle on finish or destroy; wait for that.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
  }
}

/** The first bytes of a spooled file, enough to sniff its container. */
export async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(VIDEO_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, VIDEO_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Drops bytes nobody will finish: tus partials past their expiry (in the shared tus store,
 * `sweepPartials`) and basic-upload files left in this instance's spool by a crash mid-request.
 * Returns how many.
 */
export async function sweepUploadSpool(deps: {
  readonly spoolDir: string;
  readonly sweepPartials?: () => Promise<number>;
  readonly now: () => Date;
}): Promise<number> {
  const at = deps.now().getTime();
  let removed = (await deps.sweepPartials?.()) ?? 0;
  for (const name of await readdir(deps.spoolDir).catch(() => [] as string[])) {
    if (!name.endsWith('.basic')) continue;
    const path = join(deps.spoolDir, name);
    if (at - (await stat(path).catch(() => ({ mtimeMs: at }))).mtimeMs > BASIC_LEFTOVER_MS) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}
