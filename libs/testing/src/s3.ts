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

/**
 * s3rver (a filesystem S3) plus the two multipart calls it lacks and `@tus/s3-store` needs:
 * ListParts (GET ?uploadId) and AbortMultipartUpload (DELETE ?uploadId). They read and drop
 * s3rver's own part files, so a multipart upload behaves as on S3.
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
  const uploadDir = (bucket: string, uploadId: string) => join(directory, bucket, '._S3rver_uploads', uploadId);
  const noSuchUpload = (ctx: KoaContext) => {
    ctx.status = 404;
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';
  };
  const multipart = async (ctx: KoaContext, next: () => Promise<void>) => {
    const uploadId = ctx.query['uploadId'];
    const [, bucket, ...keyParts] = ctx.path.split('/');
    if (!uploadId || !bucket || keyParts.length === 0 || !['GET', 'DELETE'].includes(ctx.method)) return next();
    const dir = uploadDir(bucket, uploadId);
    if (!(await stat(dir).catch(() => null))) return noSuchUpload(ctx);
    if (ctx.method === 'DELETE') {
      await rm(dir, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
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
    ctx.status = 200;
    ctx.type = 'application/xml';
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?><ListPartsResult><Bucket>${bucket}</Bucket><Key>${keyParts.join('/')}</Key><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`;
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
