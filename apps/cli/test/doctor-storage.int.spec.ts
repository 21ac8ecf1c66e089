// doctor's storage line against a real S3 server (Ceph RGW, the rgw engine): each way S3 refuses
// Framedesk gets its own line naming the setting and the fix (it said "not writable (UnknownError)"
// for all of them). A clock S3 refuses is covered in libs/storage (storage-problem.int.spec.ts):
// this process's clock cannot be set off.
import { loadSettings, readProjectConfig } from '@framedesk/config';
import { freePort, startTestS3, type TestS3 } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStorage } from '../src/doctor/checks';

describe('doctor: the S3 storage line on RGW', { timeout: 120_000 }, () => {
  let s3: TestS3;
  const config = (bucket: string) => {
    const example = readProjectConfig('config/project.example.json');
    return { ...example, storage: { ...example.storage, vendor_originals_bucket: bucket } };
  };
  const doctor = (env: Record<string, string>, bucket = s3.buckets['doctor']!) =>
    checkStorage(loadSettings({ ...s3.env, ...env }), config(bucket));

  beforeAll(async () => {
    s3 = await startTestS3(['doctor']);
  }, 120_000);
  afterAll(() => s3?.close());

  it('says the bucket answers', async () => {
    expect(await doctor({})).toMatchObject({ status: 'ok', message: `s3: bucket ${s3.buckets['doctor']} writable` });
  });

  it('names a missing bucket, and where to set it', async () => {
    expect(await doctor({}, 'fd-no-such-bucket')).toEqual({
      name: 'storage',
      status: 'fail',
      message: 'storage (s3): bucket fd-no-such-bucket does not exist (NoSuchBucket 404)',
      fix: expect.stringContaining('set storage.vendor_originals_bucket in the project configuration'),
    });
  });

  it('names S3_ENDPOINT when nothing answers there', async () => {
    const result = await doctor({ S3_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    expect(result).toMatchObject({
      status: 'fail',
      message: 'storage (s3): no S3 server answers at S3_ENDPOINT (ECONNREFUSED)',
      fix: expect.stringContaining('fix S3_ENDPOINT'),
    });
  });

  it('names the credentials when S3 refuses the key or the secret', async () => {
    expect(await doctor({ S3_ACCESS_KEY_ID: 'NOSUCHKEY00000000000' })).toMatchObject({
      status: 'fail',
      message: 'storage (s3): S3 refused the credentials (InvalidAccessKeyId 403)',
      fix: expect.stringContaining('fix S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY'),
    });
    expect(await doctor({ S3_SECRET_ACCESS_KEY: 'not-the-secret' })).toMatchObject({
      status: 'fail',
      message: 'storage (s3): S3 refused the credentials (SignatureDoesNotMatch 403)',
    });
  });
});
