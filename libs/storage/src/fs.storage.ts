import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { listFsBucket } from './fs-list';
import { assertSafeKey } from './keys';
import {
  type ObjectStorage,
  ObjectNotFoundError,
  ObjectTooLargeError,
  type PutOptions,
  type StoredObject,
} from './storage';

/** Counts and hashes bytes on their way through; fails past `maxBytes`. */
export function meter(maxBytes?: number) {
  const hash = createHash('sha256');
  let bytes = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (maxBytes !== undefined && bytes > maxBytes) return callback(new ObjectTooLargeError(maxBytes));
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  return { transform, result: (): StoredObject => ({ byteSize: bytes, sha256: hash.digest('hex') }) };
}

/** Runs `operation`; when it fails because `dir` does not exist, creates `dir` and runs it once more. */
async function whenDirectoryMissing<T>(dir: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
    return operation();
  }
}

/** Deletes the files directly in `dir` last modified before `olderThan`; returns how many. */
export async function sweepStaleFiles(dir: string, olderThan: Date): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile() || info.mtime >= olderThan) continue;
    await rm(path, { force: true });
    removed++;
  }
  return removed;
}

/**
 * A directory per bucket under `root`. Each write goes to a temporary file in the bucket's
 * `.tmp/`, is fsynced, then renamed into place: readers see all of an object or none of it.
 */
export function createFsStorage(root: string): ObjectStorage {
  const base = resolve(root);
  const pathOf = (bucket: string, key: string) => join(base, assertSafeKey(bucket), assertSafeKey(key));

  return {
    driver: 'fs',
    async put(bucket, key, body, options: PutOptions) {
      const target = pathOf(bucket, key);
      const tmpDir = join(base, assertSafeKey(bucket), '.tmp');
      const tmp = join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      // Directories are made only when missing (ENOENT), not before every write: the temp file is
      // opened before the body is read, so a retry after mkdir consumes nothing.
      const handle = await whenDirectoryMissing(tmpDir, () => open(tmp, 'wx'));
      const { transform, result } = meter(options.maxBytes);
      try {
        const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
        // `flush`: fsync before the stream closes the file, so the rename publishes durable bytes.
        await pipeline(source, transform, createWriteStream('', { fd: handle, flush: true }));
        await whenDirectoryMissing(dirname(target), () => rename(tmp, target));
        return result();
      } catch (error) {
        await handle.close().catch(() => undefined);
        await rm(tmp, { force: true });
        throw error;
      }
    },
    async get(bucket, key, options) {
      const path = pathOf(bucket, key);
      try {
        await stat(path);
      } catch {
        throw new ObjectNotFoundError(bucket, key);
      }
      const range = options?.range;
      return range ? createReadStream(path, { start: range.start, end: range.end }) : createReadStream(path);
    },
    async stat(bucket, key) {
      try {
        return { byteSize: (await stat(pathOf(bucket, key))).size };
      } catch {
        return null;
      }
    },
    async delete(bucket, key) {
      await rm(pathOf(bucket, key), { force: true });
    },
    list: (bucket, options) => listFsBucket(join(base, assertSafeKey(bucket)), options),
    sweepTemporary: (bucket, olderThan) => sweepStaleFiles(join(base, assertSafeKey(bucket), '.tmp'), olderThan),
    async ping(bucket) {
      const dir = join(base, assertSafeKey(bucket), '.tmp');
      await mkdir(dir, { recursive: true });
      const probe = join(dir, `ping-${randomBytes(4).toString('hex')}`);
      const handle = await open(probe, 'w');
      await handle.close();
      await rm(probe, { force: true });
    },
  };
}
