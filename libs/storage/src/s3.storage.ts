import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { MAX_LIST_PAGE } from './fs-list';
import { meter } from './fs.storage';
import { assertSafeKey, isOwnStorageKey } from './keys';
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

// S3's smallest multipart part is 5 MiB; a stream that ends before this is one plain PUT.
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Any S3-compatible store (R2, MinIO, AWS). A PUT is atomic by nature: readers see the previous
 * object or the whole new one. Streams are metered (counted, hashed, refused past `maxBytes`) on
 * their way out, without local staging: up to 8 MiB in memory and one PUT; beyond, a multipart
 * upload, completed only when the whole stream has arrived and aborted on any failure (the
 * store's temporary object; `sweepTemporary` aborts those a killed process left, and only
 * those: never a resumable upload's multipart upload in the same bucket).
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
      const { transform, result } = meter(putOptions.maxBytes);
      body.on('error', (error) => transform.destroy(error));
      body.pipe(transform);
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let uploadId: string | undefined;
      const parts: { ETag: string | undefined; PartNumber: number }[] = [];
      const sendPart = async (part: Buffer) => {
        uploadId ??= (
          await client.send(
            new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: putOptions.contentType }),
          )
        ).UploadId;
        const PartNumber = parts.length + 1;
        const { ETag } = await client.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber,
            Body: part,
            ContentLength: part.length,
          }),
        );
        parts.push({ ETag, PartNumber });
      };
      try {
        for await (const chunk of transform as AsyncIterable<Buffer>) {
          pending.push(chunk);
          pendingBytes += chunk.length;
          if (pendingBytes >= PART_BYTES) {
            const part = Buffer.concat(pending);
            pending = [];
            pendingBytes = 0;
            await sendPart(part);
          }
        }
        const rest = Buffer.concat(pending);
        if (uploadId === undefined) {
          await client.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: key,
              Body: rest,
              ContentLength: rest.length,
              ContentType: putOptions.contentType,
            }),
          );
        } else {
          if (rest.length > 0) await sendPart(rest);
          await client.send(
            new CompleteMultipartUploadCommand({
              Bucket: bucket,
              Key: key,
              UploadId: uploadId,
              MultipartUpload: { Parts: parts },
            }),
          );
        }
        return result();
      } catch (error) {
        transform.destroy();
        if (uploadId !== undefined) {
          await client
            .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
            .catch(() => undefined);
        }
        throw error;
      }
    },
    async sweepTemporary(bucket, olderThan) {
      let removed = 0;
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      do {
        const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, KeyMarker, UploadIdMarker }));
        for (const upload of page.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated >= olderThan) continue;
          if (!isOwnStorageKey(upload.Key)) continue; // a tus upload, live for up to a day
          await client.send(
            new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
          removed++;
        }
        const more = page.IsTruncated === true;
        KeyMarker = more ? page.NextKeyMarker : undefined;
        UploadIdMarker = more ? page.NextUploadIdMarker : undefined;
      } while (KeyMarker !== undefined);
      return removed;
    },
    async get(bucket, key, getOptions) {
      const range = getOptions?.range;
      try {
        const response = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: assertSafeKey(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
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
    async list(bucket, options) {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: options.prefix,
          MaxKeys: Math.min(MAX_LIST_PAGE, Math.max(1, options.limit ?? MAX_LIST_PAGE)),
          ...(options.cursor ? { ContinuationToken: options.cursor } : {}),
        }),
      );
      return {
        objects: (page.Contents ?? []).flatMap((o) =>
          o.Key ? [{ key: o.Key, byteSize: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) }] : [],
        ),
        cursor: page.IsTruncated && page.NextContinuationToken ? page.NextContinuationToken : null,
      };
    },
    // HeadBucket: reachable and allowed, without writing (readiness probes run every few seconds).
    async ping(bucket) {
      // A GET, not HeadBucket: a HEAD's error has no body, so a refusal (403) could not say whether
      // the credentials or the clock are wrong (describeStorageProblem).
      await client.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1 }));
    },
    presignGet: (bucket, key, ttlSeconds) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: assertSafeKey(key) }), {
        expiresIn: ttlSeconds,
      }),
  };
}
