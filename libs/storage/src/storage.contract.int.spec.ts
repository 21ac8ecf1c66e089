import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startTestS3 } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStorage } from './fs.storage';
import { createS3Storage } from './s3.storage';
import { storageKeys } from './keys';
import { type ObjectStorage, ObjectNotFoundError, ObjectTooLargeError, readObject } from './storage';

const BUCKET = 'contract-bucket';

interface Harness {
  storage: ObjectStorage;
  stop(): Promise<void>;
}

const drivers: Record<'fs' | 's3', () => Promise<Harness>> = {
  async fs() {
    const dir = await mkdtemp(join(tmpdir(), 'fd-storage-fs-'));
    return { storage: createFsStorage(dir), stop: () => rm(dir, { recursive: true, force: true }) };
  },
  async s3() {
    const dir = await mkdtemp(join(tmpdir(), 'fd-storage-s3-'));
    const server = await startTestS3(dir, [BUCKET]);
    const storage = createS3Storage({
      endpoint: server.endpoint,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    return {
      storage,
      async stop() {
        await server.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

describe.each(['fs', 's3'] as const)('ObjectStorage contract: %s driver', (driver) => {
  let harness: Harness;
  let storage: ObjectStorage;

  beforeAll(async () => {
    harness = await drivers[driver]();
    storage = harness.storage;
  });
  afterAll(() => harness?.stop());

  it('reports its driver', () => {
    expect(storage.driver).toBe(driver);
  });

  it('stores a buffer and reads back the same bytes, with size and SHA-256', async () => {
    const key = storageKeys.variant('sub_contract1', 'thumbnail');
    const stored = await storage.put(BUCKET, key, Buffer.from('hello world'), { contentType: 'image/webp' });
    expect(stored).toEqual({
      byteSize: 11,
      sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    });
    expect((await readObject(storage, BUCKET, key)).toString()).toBe('hello world');
    expect(await storage.stat(BUCKET, key)).toEqual({ byteSize: 11 });
  });

  it('stores a stream', async () => {
    const key = storageKeys.original('sub_contract2', 'png');
    const stored = await storage.put(BUCKET, key, chunks('ab', 'cd', 'ef'), { contentType: 'image/png', maxBytes: 6 });
    expect(stored.byteSize).toBe(6);
    expect((await readObject(storage, BUCKET, key)).toString()).toBe('abcdef');
  });

  it('refuses a stream past maxBytes and keeps nothing', async () => {
    const key = storageKeys.original('sub_contract3', 'png');
    await expect(
      storage.put(BUCKET, key, chunks('abc', 'def', 'ghi'), { contentType: 'image/png', maxBytes: 5 }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await storage.stat(BUCKET, key)).toBeNull();
  });

  it('refuses a buffer past maxBytes and keeps nothing', async () => {
    const key = storageKeys.original('sub_contract4', 'png');
    await expect(
      storage.put(BUCKET, key, Buffer.alloc(10), { contentType: 'image/png', maxBytes: 5 }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await storage.stat(BUCKET, key)).toBeNull();
  });

  it('a failed overwrite leaves the previous object whole', async () => {
    const key = storageKeys.variant('sub_contract5', 'public');
    await storage.put(BUCKET, key, Buffer.from('first version'), { contentType: 'image/webp' });
    const failing = new Readable({
      read() {
        this.push(Buffer.from('partial'));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(storage.put(BUCKET, key, failing, { contentType: 'image/webp' })).rejects.toThrow();
    expect((await readObject(storage, BUCKET, key)).toString()).toBe('first version');
  });

  it('overwrites an object with a complete new one', async () => {
    const key = storageKeys.variant('sub_contract6', 'public');
    await storage.put(BUCKET, key, Buffer.from('one'), { contentType: 'image/webp' });
    await storage.put(BUCKET, key, Buffer.from('two two'), { contentType: 'image/webp' });
    expect((await readObject(storage, BUCKET, key)).toString()).toBe('two two');
  });

  it('get of a missing object throws ObjectNotFoundError; stat is null', async () => {
    await expect(storage.get(BUCKET, 'variants/sub_missing/thumbnail.webp')).rejects.toBeInstanceOf(
      ObjectNotFoundError,
    );
    expect(await storage.stat(BUCKET, 'variants/sub_missing/thumbnail.webp')).toBeNull();
  });

  it('deletes, and deleting twice is fine', async () => {
    const key = storageKeys.poster('sub_contract7');
    await storage.put(BUCKET, key, Buffer.from('poster'), { contentType: 'image/jpeg' });
    await storage.delete(BUCKET, key);
    await storage.delete(BUCKET, key);
    expect(await storage.stat(BUCKET, key)).toBeNull();
  });

  it('refuses unsafe keys', async () => {
    await expect(storage.put(BUCKET, '../escape', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(
      /unsafe storage key/,
    );
    await expect(storage.get(BUCKET, 'a/../../b')).rejects.toThrow(/unsafe storage key/);
  });

  it('streams an object larger than one upload part and hashes it on the way', async () => {
    const key = storageKeys.original('sub_contract8', 'png');
    const part = Buffer.alloc(64 * 1024, 7);
    const count = 150; // 9.4 MiB: past the 8 MiB an s3 upload holds in memory
    const expected = createHash('sha256');
    for (let i = 0; i < count; i++) expected.update(part);
    const stored = await storage.put(BUCKET, key, Readable.from(Array.from({ length: count }, () => part)), {
      contentType: 'image/png',
    });
    expect(stored).toEqual({ byteSize: count * part.length, sha256: expected.digest('hex') });
    expect((await readObject(storage, BUCKET, key)).length).toBe(count * part.length);
  });

  it('reads only the bytes of a range: the first, a middle and the last byte of a large object', async () => {
    const key = storageKeys.original('sub_contract_range', 'mp4');
    const size = 12 * 1024 * 1024; // past one s3 part, so a whole read would be a long one
    const body = Buffer.alloc(size, 0);
    for (let i = 0; i < size; i += 4096) body[i] = (i / 4096) % 251;
    body[size - 1] = 0xee;
    await storage.put(BUCKET, key, body, { contentType: 'video/mp4' });
    const read = async (start: number, end: number) => {
      const stream = await storage.get(BUCKET, key, { range: { start, end } });
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
      return { bytes: Buffer.concat(chunks), stream };
    };
    const last = await read(size - 1, size - 1);
    // The store delivered one byte, not the 12 MiB to cut down (fs: one positioned read of one byte;
    // s3: the driver passes on what the store sent, so one byte means a ranged GetObject).
    expect(last.bytes.length).toBe(1);
    expect(last.bytes[0]).toBe(0xee);
    if (driver === 'fs') expect((last.stream as unknown as { bytesRead: number }).bytesRead).toBe(1);
    // (Not `0-0`: s3rver, the test S3, takes an end of 0 for "to the end"; S3 itself does not.)
    const first = await read(0, 1);
    expect(first.bytes.length).toBe(2);
    expect(first.bytes.equals(body.subarray(0, 2))).toBe(true);
    const middle = await read(4096 * 3, 4096 * 5);
    expect(middle.bytes.length).toBe(4096 * 2 + 1);
    expect(middle.bytes.equals(body.subarray(4096 * 3, 4096 * 5 + 1))).toBe(true);
    // Without a range, the whole object as before.
    expect((await readObject(storage, BUCKET, key)).length).toBe(size);
  });

  it('sweeps the temporary object of an unfinished write once it is older than asked, not before', async () => {
    const key = storageKeys.original('sub_contract9', 'png');
    let sent = 0;
    // A client that sends 9 MiB (past one s3 part) and then stalls, like a killed process's last write.
    const stalled = new Readable({
      read() {
        if (sent < 9 * 1024 * 1024) {
          sent += 1024 * 1024;
          this.push(Buffer.alloc(1024 * 1024, 1));
        }
      },
    });
    const writing = storage.put(BUCKET, key, stalled, { contentType: 'image/png' }).catch(() => 'failed');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await storage.sweepTemporary(BUCKET, new Date(Date.now() - 60_000))).toBe(0);
    expect(await storage.sweepTemporary(BUCKET, new Date(Date.now() + 60_000))).toBe(1);
    stalled.destroy(new Error('gone'));
    expect(await writing).toBe('failed');
    expect(await storage.stat(BUCKET, key)).toBeNull();
  });

  it('lists the objects under a prefix in key order, page by page, with sizes and times', async () => {
    const prefix = 'variants/sub_list';
    const keys = [
      storageKeys.variant('sub_list1', 'preview'),
      storageKeys.variant('sub_list1', 'thumbnail'),
      'variants/sub_list1.png', // sorts before the directory variants/sub_list1/, as S3 orders keys
      storageKeys.variant('sub_list2', 'public'),
      storageKeys.poster('sub_list3'),
    ];
    for (const [i, key] of keys.entries())
      await storage.put(BUCKET, key, Buffer.alloc(i + 1, 1), { contentType: 'image/webp' });
    await storage.put(BUCKET, storageKeys.variant('sub_other', 'public'), Buffer.from('x'), {
      contentType: 'image/webp',
    });
    const listed: { key: string; byteSize: number }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await storage.list(BUCKET, { prefix, cursor, limit: 2 });
      expect(page.objects.length).toBeLessThanOrEqual(2);
      for (const o of page.objects) {
        expect(o.lastModified).toBeInstanceOf(Date);
        expect(Date.now() - o.lastModified.getTime()).toBeLessThan(600_000);
        listed.push({ key: o.key, byteSize: o.byteSize });
      }
      cursor = page.cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(listed).toEqual([...keys].sort().map((key) => ({ key, byteSize: keys.indexOf(key) + 1 })));
    expect(pages).toBeGreaterThanOrEqual(3);
    expect((await storage.list(BUCKET, { prefix: 'variants/sub_nothing' })).objects).toEqual([]);
  });

  it('never lists the temporary object of an unfinished write', async () => {
    const stalled = new Readable({ read() {} });
    stalled.push(Buffer.alloc(9 * 1024 * 1024, 2)); // past one s3 part: a multipart upload is open
    const key = storageKeys.original('sub_list_stalled', 'png');
    const writing = storage.put(BUCKET, key, stalled, { contentType: 'image/png' }).catch(() => 'failed');
    await new Promise((r) => setTimeout(r, 1_000));
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await storage.list(BUCKET, { prefix: '', cursor });
      all.push(...page.objects.map((o) => o.key));
      cursor = page.cursor;
    } while (cursor !== null);
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((k) => k.startsWith('.') || k === key)).toEqual([]);
    stalled.destroy(new Error('gone'));
    expect(await writing).toBe('failed');
  });

  it('ping succeeds on a reachable, writable bucket', async () => {
    await expect(storage.ping(BUCKET)).resolves.toBeUndefined();
  });
});
