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

/**
 * s3rver (a filesystem S3) plus the multipart calls it lacks and `@tus/s3-store` and the
 * storage sweep need: ListParts (GET ?uploadId), AbortMultipartUpload (DELETE ?uploadId) and
 * ListMultipartUploads (GET /bucket?uploads), in S3's documented XML. They read and drop
 * s3rver's own upload directories, so a multipart upload behaves as on S3.
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
