import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
// @ts-expect-error -- s3rver ships no type declarations.
import S3rver from 's3rver';
import { freePort } from './stack';

export interface TestS3 {
  readonly endpoint: string;
  /** Settings for STORAGE_DRIVER=s3 against this server. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  status: number;
  body: unknown;
  type: string;
}

const xml = (ctx: KoaContext, status: number, body: string) => {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>${body}`;
};
const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
const noSuchUpload = (ctx: KoaContext) =>
  xml(ctx, 404, '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>');

/** ListParts: the parts s3rver stored for one multipart upload. */
async function listParts(ctx: KoaContext, dir: string, bucket: string, key: string, uploadId: string) {
  const numbers = (await readdir(dir))
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
  const parts = await Promise.all(
    numbers.map(async (n) => {
      const size = (await stat(join(dir, String(n)))).size;
      const md5 = (await readFile(join(dir, `${n}.md5`), 'utf8').catch(() => '')).trim();
      return `<Part><PartNumber>${n}</PartNumber><ETag>"${md5}"</ETag><Size>${size}</Size></Part>`;
    }),
  );
  xml(
    ctx,
    200,
    `<ListPartsResult><Bucket>${bucket}</Bucket><Key>${escapeXml(key)}</Key><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`,
  );
}

/**
 * ListMultipartUploads (GET /bucket?uploads): s3rver keeps each upload in a directory holding
 * its key; `Initiated` is when that was written. Ordered by key then upload id, with `prefix`,
 * `key-marker`/`upload-id-marker` and `max-uploads` paging, as S3 documents.
 */
async function listMultipartUploads(ctx: KoaContext, uploadsDir: string, bucket: string) {
  const ids = await readdir(uploadsDir).catch(() => [] as string[]);
  const all = (
    await Promise.all(
      ids.map(async (uploadId) => {
        const keyFile = join(uploadsDir, uploadId, 'key');
        const [key, info] = await Promise.all([
          readFile(keyFile, 'utf8').catch(() => null),
          stat(keyFile).catch(() => null),
        ]);
        return key === null || info === null ? null : { key, uploadId, initiated: info.mtime };
      }),
    )
  )
    .filter((upload) => upload !== null)
    .sort((a, b) => (a.key === b.key ? (a.uploadId < b.uploadId ? -1 : 1) : a.key < b.key ? -1 : 1));
  const prefix = ctx.query['prefix'] ?? '';
  const keyMarker = ctx.query['key-marker'] ?? '';
  const uploadIdMarker = ctx.query['upload-id-marker'] ?? '';
  const maxUploads = Math.min(Number(ctx.query['max-uploads'] ?? 1000) || 1000, 1000);
  const after = all.filter(
    (u) =>
      u.key.startsWith(prefix) &&
      (keyMarker === '' ||
        u.key > keyMarker ||
        (u.key === keyMarker && uploadIdMarker !== '' && u.uploadId > uploadIdMarker)),
  );
  const page = after.slice(0, maxUploads);
  const truncated = after.length > page.length;
  const last = page.at(-1);
  const owner = '<ID>S3RVER</ID><DisplayName>S3RVER</DisplayName>';
  const uploads = page.map(
    (u) =>
      `<Upload><Key>${escapeXml(u.key)}</Key><UploadId>${u.uploadId}</UploadId><Initiator>${owner}</Initiator><Owner>${owner}</Owner><StorageClass>STANDARD</StorageClass><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`,
  );
  xml(
    ctx,
    200,
    `<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><KeyMarker>${escapeXml(keyMarker)}</KeyMarker><UploadIdMarker>${uploadIdMarker}</UploadIdMarker>${
      truncated && last
        ? `<NextKeyMarker>${escapeXml(last.key)}</NextKeyMarker><NextUploadIdMarker>${last.uploadId}</NextUploadIdMarker>`
        : ''
    }<Prefix>${escapeXml(prefix)}</Prefix><MaxUploads>${maxUploads}</MaxUploads><IsTruncated>${truncated}</IsTruncated>${uploads.join('')}</ListMultipartUploadsResult>`,
  );
}

interface S3rverObject {
  readonly key: string;
  readonly size: number;
  readonly lastModifiedDate: Date;
  readonly metadata: Record<string, string>;
}
interface S3rverStore {
  listObjects(bucket: string, options: { prefix?: string }): Promise<{ objects: S3rverObject[] }>;
}

/**
 * ListObjectsV2 (GET /bucket?list-type=2), as S3 documents it: keys in byte order, `prefix`,
 * `start-after`, `max-keys`, and an opaque continuation token. s3rver's own answer cannot be
 * used: it makes its tokens with DES, which OpenSSL 3 no longer offers (an InternalError as soon
 * as a listing is truncated), and it walks directories, so `a/x` comes before `a.png`.
 */
async function listObjectsV2(ctx: KoaContext, store: S3rverStore, bucket: string) {
  const prefix = ctx.query['prefix'] ?? '';
  const token = ctx.query['continuation-token'];
  const startAfter = token ? Buffer.from(token, 'base64url').toString('utf8') : (ctx.query['start-after'] ?? '');
  const maxKeys = Math.min(Math.max(Number(ctx.query['max-keys'] ?? 1000) || 1000, 1), 1000);
  const { objects } = await store.listObjects(bucket, { prefix });
  const after = objects
    .filter((o) => o.key > startAfter)
    .sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  const page = after.slice(0, maxKeys);
  const truncated = after.length > page.length;
  const contents = page.map(
    (o) =>
      `<Contents><Key>${escapeXml(o.key)}</Key><LastModified>${o.lastModifiedDate.toISOString()}</LastModified><ETag>${escapeXml(o.metadata['etag'] ?? '')}</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
  );
  const next = truncated ? Buffer.from(page.at(-1)!.key).toString('base64url') : null;
  xml(
    ctx,
    200,
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${escapeXml(prefix)}</Prefix>${
      token ? `<ContinuationToken>${escapeXml(token)}</ContinuationToken>` : ''
    }${next ? `<NextContinuationToken>${next}</NextContinuationToken>` : ''}<KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents.join('')}</ListBucketResult>`,
  );
}

/**
 * s3rver (a filesystem S3) plus the multipart calls it lacks and `@tus/s3-store` and the
 * storage sweep need: ListParts (GET ?uploadId), AbortMultipartUpload (DELETE ?uploadId) and
 * ListMultipartUploads (GET /bucket?uploads), in S3's documented XML. They read and drop
 * s3rver's own upload directories, so a multipart upload behaves as on S3. And ListObjectsV2
 * (without `delimiter`), which the consistency check walks buckets with.
 */
export async function startTestS3(directory: string, buckets: string[]): Promise<TestS3> {
  const port = await freePort();
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const uploadsDir = (bucket: string) => join(directory, bucket, '._S3rver_uploads');
  const multipart = async (ctx: KoaContext, next: () => Promise<void>) => {
    const uploadId = ctx.query['uploadId'];
    const [, bucket, ...keyParts] = ctx.path.split('/');
    // The SDK may send the bucket with a trailing slash (`/bucket/?uploads`).
    if (bucket && keyParts.join('') === '' && ctx.method === 'GET' && ctx.query['uploads'] !== undefined)
      return listMultipartUploads(ctx, uploadsDir(bucket), bucket);
    if (
      bucket &&
      keyParts.join('') === '' &&
      ctx.method === 'GET' &&
      ctx.query['list-type'] === '2' &&
      ctx.query['delimiter'] === undefined
    )
      return listObjectsV2(ctx, (server as { store: S3rverStore }).store, bucket);
    if (!uploadId || !bucket || keyParts.join('') === '' || !['GET', 'DELETE'].includes(ctx.method)) return next();
    const dir = join(uploadsDir(bucket), uploadId);
    if (!(await stat(dir).catch(() => null))) return noSuchUpload(ctx);
    if (ctx.method === 'DELETE') {
      await rm(dir, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    return listParts(ctx, dir, bucket, keyParts.join('/'), uploadId);
  };
  (server as { middleware: unknown[] }).middleware.unshift(multipart);
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    close: () => server.close(),
  };
}
