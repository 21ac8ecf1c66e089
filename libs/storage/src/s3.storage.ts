import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { meter } from './fs.storage';
import { assertSafeKey } from './keys';
import { type ObjectStorage, ObjectNotFoundError, ObjectTooLargeError } from './storage';

export interface S3StorageOptions {
  readonly endpoint?: string;
  readonly region: string;
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  readonly forcePathStyle: boolean;
}

const isNotFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/** The S3 client settings every S3 user here shares (storage driver, tus partials). */
export function s3ClientConfig(options: S3StorageOptions): S3ClientConfig {
  return {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    // Plain checksums only: several S3-compatible stores reject the SDK's newer default ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that stops answering fails the call (and the job retries) instead of hanging it.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.accessKeyId && options.secretAccessKey
      ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
      : {}),
  };
}

/**
 * Any S3-compatible store (R2, MinIO, AWS). A PUT is atomic by nature: readers see the previous
 * object or the whole new one. Streams are first metered into a temporary file (refusing past
 * `maxBytes` before anything is sent), so the upload has a known length and never a partial body.
 */
export function createS3Storage(
  options: S3StorageOptions,
): ObjectStorage & { presignGet(bucket: string, key: string, ttlSeconds: number): Promise<string> } {
  const client = new S3Client(s3ClientConfig(options));

  return {
    driver: 's3',
    async put(bucket, key, body, putOptions) {
      assertSafeKey(key);
      if (Buffer.isBuffer(body)) {
        if (putOptions.maxBytes !== undefined && body.length > putOptions.maxBytes)
          throw new ObjectTooLargeError(putOptions.maxBytes);
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ContentLength: body.length,
            ContentType: putOptions.contentType,
          }),
        );
        return { byteSize: body.length, sha256: createHash('sha256').update(body).digest('hex') };
      }
      const dir = await mkdtemp(join(tmpdir(), 'framedesk-s3-'));
      const tmp = join(dir, `${randomBytes(8).toString('hex')}.part`);
      try {
        const { transform, result } = meter(putOptions.maxBytes);
        await pipeline(body, transform, createWriteStream(tmp, { flags: 'wx' }));
        const stored = result();
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: createReadStream(tmp),
            ContentLength: stored.byteSize,
            ContentType: putOptions.contentType,
          }),
        );
        return stored;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async get(bucket, key) {
      try {
        const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: assertSafeKey(key) }));
        return response.Body as Readable;
      } catch (error) {
        if (isNotFound(error)) throw new ObjectNotFoundError(bucket, key);
        throw error;
      }
    },
    async stat(bucket, key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: assertSafeKey(key) }));
        return { byteSize: head.ContentLength ?? 0 };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    async delete(bucket, key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: assertSafeKey(key) }));
    },
    async ping(bucket) {
      const key = `.framedesk-ping/${randomBytes(4).toString('hex')}`;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.alloc(0), ContentLength: 0 }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    presignGet: (bucket, key, ttlSeconds) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: assertSafeKey(key) }), {
        expiresIn: ttlSeconds,
      }),
  };
}
