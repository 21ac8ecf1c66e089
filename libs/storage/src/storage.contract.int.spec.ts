import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestS3 } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStorage } from './fs.storage';
import { createS3Storage, s3ClientConfig } from './s3.storage';
import { storageKeys } from './keys';
import { type ObjectStorage, ObjectNotFoundError, ObjectTooLargeError, readObject } from './storage';

// The s3 driver runs against a real S3 server: Ceph RGW (the rgw engine), a bucket of this file's own.
const BUCKET = 'contract-bucket';

interface Harness {
  storage: ObjectStorage & { presignGet?(bucket: string, key: string, ttlSeconds: number): Promise<string> };
  bucket: string;
  /** How many unfinished writes' temporary objects the bucket holds now (a write under way). */
  temporaryObjects(): Promise<number>;
  stop(): Promise<void>;
}

const drivers: Record<'fs' | 's3', () => Promise<Harness>> = {
  async fs() {
    const dir = await mkdtemp(join(tmpdir(), 'fd-storage-fs-'));
    return {
      storage: createFsStorage(dir),
      bucket: BUCKET,
      temporaryObjects: async () => (await readdir(join(dir, BUCKET, '.tmp')).catch(() => [])).length,
      stop: () => rm(dir, { recursive: true, force: true }),
    };
  },
  async s3() {
    const server = await startTestS3([BUCKET]);
    const options = {
      endpoint: server.endpoint,
      region: server.env['S3_REGION']!,
      accessKeyId: server.env['S3_ACCESS_KEY_ID']!,
      secretAccessKey: server.env['S3_SECRET_ACCESS_KEY']!,
      forcePathStyle: true,
    };
    const bucket = server.buckets[BUCKET]!;
    const client = new S3Client(s3ClientConfig(options));
    return {
      storage: createS3Storage(options),
      bucket,
      // The put's multipart upload, open while its parts are sent.
      temporaryObjects: async () =>
        (await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads?.length ?? 0,
      stop: async () => {
        client.destroy();
        await server.close();
      },
    };
  },
};

const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

describe.each(['fs', 's3'] as const)('ObjectStorage contract: %s driver', (driver) => {
  let harness: Harness;
  let storage: ObjectStorage;
  let bucket: string;

  beforeAll(async () => {
    harness = await drivers[driver]();
    storage = harness.storage;
    bucket = harness.bucket;
  }, 120_000);
  afterAll(() => harness?.stop());

  it('reports its driver', () => {
    expect(storage.driver).toBe(driver);
  });

  it('stores a buffer and reads back the same bytes, with size and SHA-256', async () => {
    const key = storageKeys.variant('sub_contract1', 'thumbnail');
    const stored = await storage.put(bucket, key, Buffer.from('hello world'), { contentType: 'image/webp' });
    expect(stored).toEqual({
      byteSize: 11,
      sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    });
    expect((await readObject(storage, bucket, key)).toString()).toBe('hello world');
    expect(await storage.stat(bucket, key)).toEqual({ byteSize: 11 });
  });

  it('stores a stream', async () => {
    const key = storageKeys.original('sub_contract2', 'png');
    const stored = await storage.put(bucket, key, chunks('ab', 'cd', 'ef'), { contentType: 'image/png', maxBytes: 6 });
    expect(stored.byteSize).toBe(6);
    expect((await readObject(storage, bucket, key)).toString()).toBe('abcdef');
  });

  it('refuses a stream past maxBytes and keeps nothing', async () => {
    const key = storageKeys.original('sub_contract3', 'png');
    await expect(
      storage.put(bucket, key, chunks('abc', 'def', 'ghi'), { contentType: 'image/png', maxBytes: 5 }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await storage.stat(bucket, key)).toBeNull();
  });

  it('refuses a buffer past maxBytes and keeps nothing', async () => {
    const key = storageKeys.original('sub_contract4', 'png');
    await expect(
      storage.put(bucket, key, Buffer.alloc(10), { contentType: 'image/png', maxBytes: 5 }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await storage.stat(bucket, key)).toBeNull();
  });

  it('a failed overwrite leaves the previous object whole', async () => {
    const key = storageKeys.variant('sub_contract5', 'public');
    await storage.put(bucket, key, Buffer.from('first version'), { contentType: 'image/webp' });
    const failing = new Readable({
      read() {
        this.push(Buffer.from('partial'));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(storage.put(bucket, key, failing, { contentType: 'image/webp' })).rejects.toThrow();
    expect((await readObject(storage, bucket, key)).toString()).toBe('first version');
  });

  it('overwrites an object with a complete new one', async () => {
    const key = storageKeys.variant('sub_contract6', 'public');
    await storage.put(bucket, key, Buffer.from('one'), { contentType: 'image/webp' });
    await storage.put(bucket, key, Buffer.from('two two'), { contentType: 'image/webp' });
    expect((await readObject(storage, bucket, key)).toString()).toBe('two two');
  });

  it('get of a missing object throws ObjectNotFoundError; stat is null', async () => {
    await expect(storage.get(bucket, 'variants/sub_missing/thumbnail.webp')).rejects.toBeInstanceOf(
      ObjectNotFoundError,
    );
    expect(await storage.stat(bucket, 'variants/sub_missing/thumbnail.webp')).toBeNull();
  });

  it('deletes, and deleting twice is fine', async () => {
    const key = storageKeys.poster('sub_contract7');
    await storage.put(bucket, key, Buffer.from('poster'), { contentType: 'image/jpeg' });
    await storage.delete(bucket, key);
    await storage.delete(bucket, key);
    expect(await storage.stat(bucket, key)).toBeNull();
  });

  it('refuses unsafe keys', async () => {
    await expect(storage.put(bucket, '../escape', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(
      /unsafe storage key/,
    );
    await expect(storage.get(bucket, 'a/../../b')).rejects.toThrow(/unsafe storage key/);
  });

  it('streams an object larger than one upload part and hashes it on the way', async () => {
    const key = storageKeys.original('sub_contract8', 'png');
    const part = Buffer.alloc(64 * 1024, 7);
    const count = 150; // 9.4 MiB: past the 8 MiB an s3 upload holds in memory
    const expected = createHash('sha256');
    for (let i = 0; i < count; i++) expected.update(part);
    const stored = await storage.put(bucket, key, Readable.from(Array.from({ length: count }, () => part)), {
      contentType: 'image/png',
    });
    expect(stored).toEqual({ byteSize: count * part.length, sha256: expected.digest('hex') });
    expect((await readObject(storage, bucket, key)).length).toBe(count * part.length);
  });

  it('reads only the bytes of a range: the first, a middle and the last byte of a large object', async () => {
    const key = storageKeys.original('sub_contract_range', 'mp4');
    const size = 12 * 1024 * 1024; // past one s3 part, so a whole read would be a long one
    const body = Buffer.alloc(size, 0);
    for (let i = 0; i < size; i += 4096) body[i] = (i / 4096) % 251;
    body[size - 1] = 0xee;
    await storage.put(bucket, key, body, { contentType: 'video/mp4' });
    const read = async (start: number, end: number) => {
      const stream = await storage.get(bucket, key, { range: { start, end } });
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
    const first = await read(0, 0);
    expect(first.bytes.length).toBe(1);
    expect(first.bytes[0]).toBe(body[0]);
    const middle = await read(4096 * 3, 4096 * 5);
    expect(middle.bytes.length).toBe(4096 * 2 + 1);
    expect(middle.bytes.equals(body.subarray(4096 * 3, 4096 * 5 + 1))).toBe(true);
    // Without a range, the whole object as before.
    expect((await readObject(storage, bucket, key)).length).toBe(size);
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
    const writing = storage.put(bucket, key, stalled, { contentType: 'image/png' }).catch(() => 'failed');
    await expect.poll(() => harness.temporaryObjects(), { timeout: 30_000 }).toBe(1);
    expect(await storage.sweepTemporary(bucket, new Date(Date.now() - 60_000))).toBe(0);
    expect(await storage.sweepTemporary(bucket, new Date(Date.now() + 60_000))).toBe(1);
    stalled.destroy(new Error('gone'));
    expect(await writing).toBe('failed');
    expect(await storage.stat(bucket, key)).toBeNull();
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
      await storage.put(bucket, key, Buffer.alloc(i + 1, 1), { contentType: 'image/webp' });
    await storage.put(bucket, storageKeys.variant('sub_other', 'public'), Buffer.from('x'), {
      contentType: 'image/webp',
    });
    const listed: { key: string; byteSize: number }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await storage.list(bucket, { prefix, cursor, limit: 2 });
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
    expect((await storage.list(bucket, { prefix: 'variants/sub_nothing' })).objects).toEqual([]);
  });

  it('never lists the temporary object of an unfinished write', async () => {
    const stalled = new Readable({ read() {} });
    stalled.push(Buffer.alloc(9 * 1024 * 1024, 2)); // past one s3 part: a multipart upload is open
    const key = storageKeys.original('sub_list_stalled', 'png');
    const writing = storage.put(bucket, key, stalled, { contentType: 'image/png' }).catch(() => 'failed');
    await expect.poll(() => harness.temporaryObjects(), { timeout: 30_000 }).toBeGreaterThan(0);
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await storage.list(bucket, { prefix: '', cursor });
      all.push(...page.objects.map((o) => o.key));
      cursor = page.cursor;
    } while (cursor !== null);
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((k) => k.startsWith('.') || k === key)).toEqual([]);
    stalled.destroy(new Error('gone'));
    expect(await writing).toBe('failed');
  });

  it('ping succeeds on a reachable, writable bucket', async () => {
    await expect(storage.ping(bucket)).resolves.toBeUndefined();
  });

  it.runIf(driver === 's3')('signs a link that reads the object, and refuses it tampered or expired', async () => {
    const key = storageKeys.variant('sub_contract_signed', 'public');
    await storage.put(bucket, key, Buffer.from('signed bytes'), { contentType: 'image/webp' });
    const url = await harness.storage.presignGet!(bucket, key, 60);
    const ok = await fetch(url);
    expect([ok.status, await ok.text()]).toEqual([200, 'signed bytes']);
    const tampered = await fetch(url.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${'0'.repeat(64)}`));
    expect(tampered.status).toBe(403);
    await tampered.arrayBuffer();
    // A link valid for one second: refused once that second has passed (polled, not slept on).
    const expiring = await harness.storage.presignGet!(bucket, key, 1);
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (status !== 403 && Date.now() < deadline) {
      const response = await fetch(expiring);
      status = response.status;
      await response.arrayBuffer();
      if (status !== 403) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(403);
  });
});
