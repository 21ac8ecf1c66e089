// describeStorageProblem on what a real S3 server (Ceph RGW, the rgw engine) answers: RGW sends no
// error message ("UnknownError" in the SDK), so each cause is told by the error's name and status.
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTestS3, type TestS3 } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ClientConfig } from './s3.storage';
import { describeStorageProblem } from './storage-problem';

describe('describeStorageProblem on RGW answers', { timeout: 120_000 }, () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3(['problems']);
  }, 120_000);
  afterAll(() => s3?.close());

  const refusal = async (change: { systemClockOffset?: number; secret?: string; bucket?: string }) => {
    const client = new S3Client({
      ...s3ClientConfig({
        endpoint: s3.endpoint,
        region: s3.env['S3_REGION']!,
        accessKeyId: s3.env['S3_ACCESS_KEY_ID'],
        secretAccessKey: change.secret ?? s3.env['S3_SECRET_ACCESS_KEY'],
        forcePathStyle: true,
      }),
      ...(change.systemClockOffset !== undefined ? { systemClockOffset: change.systemClockOffset } : {}),
    });
    try {
      await client.send(new ListObjectsV2Command({ Bucket: change.bucket ?? s3.buckets['problems']!, MaxKeys: 1 }));
      return null;
    } catch (error) {
      expect((error as Error).message).toBe('UnknownError'); // nothing to match on but name and status
      return describeStorageProblem(error, 's3', 'the-bucket');
    } finally {
      client.destroy();
    }
  };

  it('a clock an hour off: S3 refuses it, and the line says to set the clock', async () => {
    expect(await refusal({ systemClockOffset: 3_600_000 })).toEqual({
      cause: 'clock_skew',
      problem: "storage (s3): S3 refused this machine's clock (RequestTimeTooSkewed 403)",
      fix: expect.stringContaining('NTP'),
      line: expect.stringMatching(
        /^storage \(s3\): S3 refused this machine's clock .*; set this machine's clock right/,
      ),
    });
  });

  it('a missing bucket and a wrong secret each get their own cause', async () => {
    expect((await refusal({ bucket: 'fd-none-here' }))?.cause).toBe('missing_bucket');
    expect((await refusal({ secret: 'wrong' }))?.cause).toBe('credentials');
    expect(await refusal({})).toBeNull();
  });
});
