import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import type { Request } from 'express';
import busboy from 'busboy';
import { DomainError } from '@framedesk/domain';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// After a refusal the rest of the body is read and discarded, so the client sees our answer;
// past this many bytes the connection is cut instead.
const DRAIN_CAP_BYTES = 64 * 1024 * 1024;

const notUtf8 = () => new DomainError('invalid_request', 'The "metadata" part must be UTF-8 encoded JSON.');

export interface MultipartLimits {
  readonly metadataMaxBytes: number;
  readonly multipartMaxBytes: number;
  readonly allowedImageTypes: readonly string[];
  /** Where the image is spooled while it is hashed; the file is removed on every path. */
  readonly spoolDir: string;
}

/** The image, spooled to a temporary file and hashed on the way. */
export interface SpooledImage {
  readonly byteSize: number;
  readonly sha256: string;
  readonly contentType: string;
  open(): Readable;
  remove(): Promise<void>;
}

export interface FrameParts {
  readonly metadata: string;
  readonly image: SpooledImage;
}

const unsupported = (detail: string) => new DomainError('unsupported_media_type', detail);
const VIDEO_REFUSED =
  'V1 accepts only an image part here. Videos go through POST /v1/media-uploads, and a media_upload_id is never resubmitted: the upload completes by itself.';

/**
 * Streams a frame submission's multipart body (parts `metadata` and `image`), bounded: the
 * metadata by `api.metadata_max_bytes`, the whole body by `media.multipart_max_bytes` (counted
 * while streaming), the image spooled to disk and checked for PNG magic bytes. Any refusal
 * stops parsing, removes the spool file and drains the rest of the body.
 */
export async function receiveFrameParts(req: Request, limits: MultipartLimits): Promise<FrameParts> {
  if (!req.is('multipart/form-data')) {
    throw unsupported(`Send multipart/form-data with parts "metadata" and "image". ${VIDEO_REFUSED}`);
  }
  const declared = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limits.multipartMaxBytes) {
    drain(req, 0);
    throw tooLarge(limits.multipartMaxBytes);
  }
  await mkdir(limits.spoolDir, { recursive: true });
  const spoolPath = join(limits.spoolDir, `${randomBytes(12).toString('hex')}.part`);

  return new Promise<FrameParts>((resolve, reject) => {
    let settled = false;
    let received = 0;
    let metadata: string | undefined;
    let image: Omit<SpooledImage, 'open' | 'remove'> | undefined;
    let spool: WriteStream | undefined;
    let pendingWrites = 0;
    let parserClosed = false;
    let deferred: DomainError | undefined;

    let parser: ReturnType<typeof busboy>;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fieldSize: limits.metadataMaxBytes,
          fileSize: limits.multipartMaxBytes,
          files: 4,
          fields: 8,
          parts: 12,
          fieldNameSize: 200,
        },
      });
    } catch {
      reject(new DomainError('invalid_request', 'The multipart body has no valid boundary.'));
      return;
    }

    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > limits.multipartMaxBytes) return callback(tooLarge(limits.multipartMaxBytes));
        callback(null, chunk);
      },
    });

    const fail = (error: DomainError) => {
      if (settled) return;
      settled = true;
      req.unpipe(counter);
      counter.unpipe(parser);
      counter.destroy();
      parser.removeAllListeners('close');
      drain(req, received);
      // Remove the spool file only once its stream has closed: an open still in progress would recreate it.
      const closed =
        spool && !spool.closed ? new Promise<void>((r) => spool!.once('close', () => r())) : Promise.resolve();
      spool?.destroy();
      void closed.then(() => rm(spoolPath, { force: true })).finally(() => reject(error));
    };

    const finish = () => {
      if (settled || !parserClosed || pendingWrites > 0) return;
      if (deferred) return fail(deferred);
      if (metadata === undefined)
        return fail(new DomainError('invalid_request', 'The "metadata" part (JSON) is missing.'));
      if (!image) return fail(new DomainError('invalid_request', 'The "image" part (PNG) is missing.'));
      settled = true;
      resolve({
        metadata,
        image: { ...image, open: () => createReadStream(spoolPath), remove: () => rm(spoolPath, { force: true }) },
      });
    };

    parser.on('field', (name, value, info) => {
      if (name === 'media_upload_id' || name === 'video')
        return fail(unsupported(`The "${name}" field is not supported. ${VIDEO_REFUSED}`));
      if (name !== 'metadata') {
        deferred ??= new DomainError('invalid_request', `Unexpected part "${name}"; send only "metadata" and "image".`);
        return;
      }
      if (info.valueTruncated || Buffer.byteLength(value) > limits.metadataMaxBytes)
        return fail(metadataTooLarge(limits.metadataMaxBytes));
      // busboy decodes fields itself, turning invalid UTF-8 into U+FFFD: refuse rather than store mangled text.
      if (value.includes('\uFFFD')) return fail(notUtf8());
      if (metadata !== undefined) deferred ??= new DomainError('invalid_request', 'Send one "metadata" part.');
      metadata = value;
    });

    parser.on('file', (name, stream, info) => {
      // A body cut off inside a part errors the part's stream; unheard, it would crash the process.
      stream.on('error', (error: Error) =>
        fail(new DomainError('invalid_request', `The multipart body is malformed: ${error.message}.`)),
      );
      // Parts the parser had buffered can still arrive after the request failed: never spool them.
      if (settled) {
        stream.resume();
        return;
      }
      if (name === 'video' || name === 'media_upload_id') {
        stream.resume();
        return fail(unsupported(`The "${name}" part is not supported. ${VIDEO_REFUSED}`));
      }
      if (name === 'metadata') {
        // Sent as a file (curl -F metadata=@meta.json): read it, bounded.
        const chunks: Buffer[] = [];
        let size = 0;
        pendingWrites++;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.metadataMaxBytes) return fail(metadataTooLarge(limits.metadataMaxBytes));
          chunks.push(chunk);
        });
        stream.on('end', () => {
          pendingWrites--;
          if (metadata !== undefined) deferred ??= new DomainError('invalid_request', 'Send one "metadata" part.');
          try {
            metadata = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
          } catch {
            return fail(notUtf8());
          }
          finish();
        });
        return;
      }
      if (name !== 'image' || image || spool) {
        stream.resume();
        deferred ??= new DomainError(
          'invalid_request',
          name === 'image' ? 'Send one "image" part.' : `Unexpected part "${name}"; send only "metadata" and "image".`,
        );
        return;
      }
      const contentType = info.mimeType.toLowerCase();
      if (!limits.allowedImageTypes.includes(contentType)) {
        stream.resume();
        return fail(
          unsupported(`The image must be one of ${limits.allowedImageTypes.join(', ')}; got ${contentType}.`),
        );
      }
      pendingWrites++;
      const hash = createHash('sha256');
      let size = 0;
      let head = Buffer.alloc(0);
      const inspect = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (head.length < PNG_MAGIC.length) {
            head = Buffer.concat([head, chunk.subarray(0, PNG_MAGIC.length - head.length)]);
            if (!PNG_MAGIC.subarray(0, head.length).equals(head))
              return callback(unsupported('The image is not a PNG (its first bytes are not the PNG signature).'));
          }
          size += chunk.length;
          hash.update(chunk);
          callback(null, chunk);
        },
      });
      spool = createWriteStream(spoolPath, { flags: 'wx' });
      stream.on('limit', () => fail(tooLarge(limits.multipartMaxBytes)));
      inspect.on('error', (error) =>
        fail(
          error instanceof DomainError
            ? error
            : new DomainError('invalid_request', 'The image part could not be read.'),
        ),
      );
      spool.on('error', (error) =>
        fail(new DomainError('internal_error', `Could not spool the image: ${error.message}`)),
      );
      spool.on('finish', () => {
        pendingWrites--;
        if (head.length < PNG_MAGIC.length)
          return fail(unsupported('The image is not a PNG (it is shorter than the PNG signature).'));
        image = { byteSize: size, sha256: hash.digest('hex'), contentType };
        finish();
      });
      stream.pipe(inspect).pipe(spool);
    });

    parser.on('partsLimit', () =>
      fail(new DomainError('invalid_request', 'Too many parts; send only "metadata" and "image".')),
    );
    parser.on('filesLimit', () => fail(new DomainError('invalid_request', 'Too many files; send one "image".')));
    parser.on('fieldsLimit', () =>
      fail(new DomainError('invalid_request', 'Too many fields; send only "metadata" and "image".')),
    );
    parser.on('error', (error) =>
      fail(new DomainError('invalid_request', `The multipart body is malformed: ${error.message}.`)),
    );
    parser.on('close', () => {
      parserClosed = true;
      finish();
    });
    counter.on('error', (error) =>
      fail(
        error instanceof DomainError
          ? error
          : new DomainError('invalid_request', 'The request body could not be read.'),
      ),
    );
    req.on('aborted', () =>
      fail(new DomainError('invalid_request', 'The request was aborted before its body arrived.')),
    );
    req.on('error', () => fail(new DomainError('invalid_request', 'The request body could not be read.')));
    req.pipe(counter).pipe(parser);
  });
}

function tooLarge(max: number): DomainError {
  return new DomainError(
    'payload_too_large',
    `The request body exceeds ${max} bytes (media.multipart_max_bytes). Larger media: POST /v1/media-uploads.`,
  );
}

function metadataTooLarge(max: number): DomainError {
  return new DomainError('metadata_too_large', `The metadata part exceeds ${max} bytes (api.metadata_max_bytes).`);
}

/** Reads and discards the rest of a refused body, so the client gets our answer; cuts off past the cap. */
function drain(req: Request, alreadyRead: number): void {
  let read = alreadyRead;
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > DRAIN_CAP_BYTES) req.socket.destroy();
  });
  req.resume();
}
