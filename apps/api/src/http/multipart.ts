import { type Readable, Transform } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { Request } from 'express';
import busboy from 'busboy';
import { DomainError } from '@framedesk/domain';
import { ObjectTooLargeError } from '@framedesk/storage';
import { asUnavailable } from './unavailable';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// Signature, then the IHDR chunk: length 13, type, width, height, 5 bytes of format, CRC.
const PNG_HEAD_BYTES = 8 + 4 + 4 + 13 + 4;
// Bit depths PNG allows per colour type (PNG spec, 11.2.2).
const PNG_BIT_DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
// After a refusal the rest of the body is read and discarded, so the client sees our answer;
// past this many bytes the connection is cut instead.
const DRAIN_CAP_BYTES = 64 * 1024 * 1024;

const notUtf8 = () => new DomainError('invalid_request', 'The "metadata" part must be UTF-8 encoded JSON.');

export interface MultipartLimits {
  readonly metadataMaxBytes: number;
  readonly multipartMaxBytes: number;
  readonly allowedImageTypes: readonly string[];
}

/** Where the image part streams to, once: the storage driver's temporary object (hashed there). */
export type ImageSink<T extends { discard(): Promise<void> }> = (body: Readable, contentType: string) => Promise<T>;

export interface FrameParts<T> {
  readonly metadata: string;
  readonly image: T;
}

const unsupported = (detail: string) => new DomainError('unsupported_media_type', detail);
const VIDEO_REFUSED =
  'V1 accepts only an image part here. Videos go through POST /v1/media-uploads, and a media_upload_id is never resubmitted: the upload completes by itself.';

/**
 * Streams a frame submission's multipart body (parts `metadata` and `image`), bounded: the
 * metadata by `api.metadata_max_bytes`, the whole body by `media.multipart_max_bytes` (counted
 * while streaming). The image streams once, straight into `sink` (the storage driver's temporary
 * object, hashed on the way), its PNG signature and IHDR checked on the first bytes. Any refusal
 * stops parsing, discards what the sink stored, and drains the rest of the body. A sink failing
 * on a full disk or an unreachable store is 503 (never the raw fs message).
 */
export async function receiveFrameParts<T extends { discard(): Promise<void> }>(
  req: Request,
  limits: MultipartLimits,
  sink: ImageSink<T>,
): Promise<FrameParts<T>> {
  if (!req.is('multipart/form-data')) {
    throw unsupported(`Send multipart/form-data with parts "metadata" and "image". ${VIDEO_REFUSED}`);
  }
  const declared = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limits.multipartMaxBytes) {
    drain(req, 0);
    throw tooLarge(limits.multipartMaxBytes);
  }

  return new Promise<FrameParts<T>>((resolve, reject) => {
    let settled = false;
    let received = 0;
    let metadata: string | undefined;
    let image: T | undefined;
    let storing: Promise<T> | undefined;
    let inspect: Transform | undefined;
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
      // Answer only once the sink has settled: a write it finished is discarded, one it had not
      // finished removes its own temporary object when its source errors.
      inspect?.destroy(error);
      const cleaned = storing
        ? storing.then(
            (stored) => stored.discard(),
            () => undefined,
          )
        : Promise.resolve();
      void cleaned.finally(() => reject(error));
    };

    const finish = () => {
      if (settled || !parserClosed || pendingWrites > 0) return;
      if (deferred) return fail(deferred);
      if (metadata === undefined)
        return fail(new DomainError('invalid_request', 'The "metadata" part (JSON) is missing.'));
      if (!image) return fail(new DomainError('invalid_request', 'The "image" part (PNG) is missing.'));
      settled = true;
      resolve({ metadata, image });
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
      if (name !== 'image' || storing) {
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
      let head = Buffer.alloc(0);
      const check = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (head.length < PNG_HEAD_BYTES) {
            head = Buffer.concat([head, chunk.subarray(0, PNG_HEAD_BYTES - head.length)]);
            const refusal = checkPngHead(head);
            if (refusal) return callback(unsupported(refusal));
          }
          callback(null, chunk);
        },
        flush(callback) {
          if (head.length < PNG_HEAD_BYTES)
            return callback(unsupported('The image is not a PNG (it ends before its IHDR header).'));
          callback();
        },
      });
      inspect = check;
      stream.on('limit', () => fail(tooLarge(limits.multipartMaxBytes)));
      check.on('error', (error) => fail(asDomainError(error)));
      stream.pipe(check);
      storing = sink(check, contentType);
      storing.then(
        (stored) => {
          pendingWrites--;
          if (settled) return void stored.discard();
          image = stored;
          finish();
        },
        (error: unknown) => {
          pendingWrites--;
          fail(asDomainError(error));
        },
      );
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

/** What refuses the first bytes of an image as a PNG, or null while they fit (checked as they arrive). */
function checkPngHead(head: Buffer): string | null {
  const magic = head.subarray(0, PNG_MAGIC.length);
  if (!PNG_MAGIC.subarray(0, magic.length).equals(magic))
    return 'The image is not a PNG (its first bytes are not the PNG signature).';
  if (head.length < PNG_HEAD_BYTES) return null;
  const badHeader = 'The image is not a valid PNG (its first chunk is not a valid IHDR header).';
  if (head.readUInt32BE(8) !== 13 || head.toString('latin1', 12, 16) !== 'IHDR') return badHeader;
  const width = head.readUInt32BE(16);
  const height = head.readUInt32BE(20);
  const [depth, colour, compression, filter, interlace] = head.subarray(24, 29);
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) return badHeader;
  if (!PNG_BIT_DEPTHS[colour!]?.includes(depth!) || compression !== 0 || filter !== 0 || interlace! > 1)
    return badHeader;
  if (crc32(head.subarray(12, 29)) !== head.readUInt32BE(29)) return badHeader;
  return null;
}

/** Refusals pass as they are; a store that is full or down is 503; anything else a generic 500. */
function asDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof ObjectTooLargeError) return tooLarge(error.maxBytes);
  return (
    asUnavailable(error) ??
    new DomainError('internal_error', 'The image could not be stored; the request id identifies it in our logs.', {
      cause: error,
    })
  );
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
