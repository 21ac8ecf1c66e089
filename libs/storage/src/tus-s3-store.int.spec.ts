// DurableS3Store against a real S3 server (Ceph RGW, the rgw engine): a process dying at any S3 call of a PATCH leaves the bytes
// acknowledged before it readable, and the offset a new process reports is one it acknowledged.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { startTestS3, type TestS3 } from '@framedesk/testing';
import { S3Store } from '@tus/s3-store';
import { Upload } from '@tus/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readObject } from './storage';
import { createS3Storage, s3ClientConfig } from './s3.storage';
import { DurableS3Store } from './tus-s3-store';

const BUCKET = 'tus-partials';
const MiB = 1024 * 1024;

describe('DurableS3Store: a PATCH killed at any S3 call', { timeout: 240_000 }, () => {
  let s3: TestS3;
  const s3Options = () => ({
    endpoint: s3.env['S3_ENDPOINT'],
    region: s3.env['S3_REGION']!,
    accessKeyId: s3.env['S3_ACCESS_KEY_ID'],
    secretAccessKey: s3.env['S3_SECRET_ACCESS_KEY'],
    forcePathStyle: true,
  });
  const bucket = () => s3.buckets[BUCKET]!;
  // As createTusStore configures it.
  const options = () => ({ s3ClientConfig: { ...s3ClientConfig(s3Options()), bucket: bucket() }, useTags: false });

  /** A store whose S3 calls fail from the `dieAt`-th on, as if its process had been killed there. */
  const dyingStore = (Store: typeof S3Store, dieAt: number) => {
    const store = new Store(options());
    let calls = 0;
    (store as unknown as { client: S3Store['client'] }).client.middlewareStack.add(
      (next) => async (args) => {
        if (++calls >= dieAt) throw new Error('killed');
        return next(args);
      },
      { step: 'initialize' },
    );
    return { store, calls: () => calls };
  };

  /**
   * An upload of `total` bytes with `acked` acknowledged, then a PATCH of `more` bytes dying at
   * S3 call `dieAt`. Returns what a fresh process then reports, after resuming to the end.
   */
  const crashCase = async (Store: typeof S3Store, dieAt: number, acked: number, more: number) => {
    const total = 12 * MiB;
    const bytes = randomBytes(total);
    const id = `up-${randomBytes(6).toString('hex')}`;
    const first = new Store(options());
    await first.create(new Upload({ id, size: total, offset: 0 }));
    expect(await first.write(Readable.from([bytes.subarray(0, acked)]), id, 0)).toBe(acked);
    const { store, calls } = dyingStore(Store, dieAt);
    const died = await store.write(Readable.from([bytes.subarray(acked, acked + more)]), id, acked).then(
      () => false,
      () => true,
    );
    const fresh = new DurableS3Store(options());
    const offset = (await fresh.getUpload(id)).offset;
    if (offset < total) await fresh.write(Readable.from([bytes.subarray(offset)]), id, offset);
    const stored = await readObject(storage(), bucket(), id);
    return { died, calls: calls(), offset, intact: stored.equals(bytes) };
  };
  const storage = () => createS3Storage(s3Options());

  beforeAll(async () => {
    s3 = await startTestS3([BUCKET]);
  }, 120_000);
  afterAll(() => s3?.close());

  // 3 MiB acknowledged (an incomplete part), then 1 MiB (still incomplete) or 4 MiB (a whole part).
  it.each([
    ['stays an incomplete part', 1 * MiB],
    ['fills a whole part', 4 * MiB],
  ])('the PATCH %s: every kill point reports an acknowledged offset, and the upload ends intact', async (_, more) => {
    const acked = 3 * MiB;
    for (let dieAt = 1; ; dieAt++) {
      const result = await crashCase(DurableS3Store, dieAt, acked, more);
      expect(result.intact, `killed at S3 call ${dieAt}`).toBe(true);
      expect([acked, acked + more], `killed at S3 call ${dieAt}`).toContain(result.offset);
      if (!result.died) break; // every call of the PATCH has been a kill point
    }
  });

  it('upstream @tus/s3-store loses acknowledged bytes at one of those points (why DurableS3Store exists)', async () => {
    const offsets: number[] = [];
    for (let dieAt = 1; ; dieAt++) {
      const result = await crashCase(S3Store, dieAt, 3 * MiB, 1 * MiB);
      expect(result.intact).toBe(true);
      offsets.push(result.offset);
      if (!result.died) break;
    }
    expect(offsets).toContain(0);
  });

  it('an upload asked for while S3 does not answer is an error, not "not found" (upstream says 404)', async () => {
    const id = `up-${randomBytes(6).toString('hex')}`;
    await new DurableS3Store(options()).create(new Upload({ id, size: 10, offset: 0 }));
    // A store of another instance (nothing cached) whose S3 calls all fail, as during an outage.
    const outage = (Store: typeof S3Store) => dyingStore(Store, 1).store.getUpload(id);
    await expect(outage(DurableS3Store)).rejects.toThrow('killed');
    await expect(outage(S3Store)).rejects.toMatchObject({ status_code: 404 });
    expect((await new DurableS3Store(options()).getUpload(id)).offset).toBe(0);
    await expect(new DurableS3Store(options()).getUpload(`${id}-none`)).rejects.toMatchObject({ status_code: 404 });
  });
});
