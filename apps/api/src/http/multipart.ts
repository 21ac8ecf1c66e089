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
const invalid = (detail: string) => new DomainError('invalid_request', detail);
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
    // Read the body before answering when it is within the drain cap: a 413 sent while the client
    // still writes is lost when the socket closes on its unread bytes (the client sees a reset,
    // never our problem); past the cap the connection is cut, as it must be.
    if (declared <= DRAIN_CAP_BYTES) await drained(req);
    else drain(req, 0);
    throw tooLarge(limits.multipartMaxBytes);
  }
  return new Promise<FrameParts<T>>((resolve, reject) => {
    let parser: Parser;
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
    new FramePartsReader(req, parser, limits, sink, resolve, reject).start();
  });
}

type Parser = ReturnType<typeof busboy>;

/** One request's parse: the parts seen so far, the image's write, and one outcome (settled once). */
class FramePartsReader<T extends { discard(): Promise<void> }> {
  private settled = false;
  private received = 0;
  private metadata: string | undefined;
  private image: T | undefined;
  private storing: Promise<T> | undefined;
  private inspect: Transform | undefined;
  private pendingWrites = 0;
  private parserClosed = false;
  /** A refusal that waits for the whole body (an unexpected or repeated part). */
  private deferred: DomainError | undefined;
  private readonly counter: Transform;

  constructor(
    private readonly req: Request,
    private readonly parser: Parser,
    private readonly limits: MultipartLimits,
    private readonly sink: ImageSink<T>,
    private readonly resolve: (parts: FrameParts<T>) => void,
    private readonly reject: (error: DomainError) => void,
  ) {
    const max = limits.multipartMaxBytes;
    this.counter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.received += chunk.length;
        if (this.received > max) return callback(tooLarge(max));
        callback(null, chunk);
      },
    });
  }

  start(): void {
    const { parser, req } = this;
    const malformed = (error: Error) =>
      this.fail(new DomainError('invalid_request', `The multipart body is malformed: ${error.message}.`));
    parser.on('field', (name, value, info) => this.onField(name, value, info.valueTruncated));
    parser.on('file', (name, stream, info) => {
      // A body cut off inside a part errors the part's stream; unheard, it would crash the process.
      stream.on('error', malformed);
      this.onFile(name, stream, info.mimeType);
    });
    parser.on('partsLimit', () => this.fail(invalid('Too many parts; send only "metadata" and "image".')));
    parser.on('filesLimit', () => this.fail(invalid('Too many files; send one "image".')));
    parser.on('fieldsLimit', () => this.fail(invalid('Too many fields; send only "metadata" and "image".')));
    parser.on('error', malformed);
    parser.on('close', () => {
      this.parserClosed = true;
      this.finish();
    });
    this.counter.on('error', (error) =>
      this.fail(error instanceof DomainError ? error : invalid('The request body could not be read.')),
    );
    req.on('aborted', () => this.fail(invalid('The request was aborted before its body arrived.')));
    req.on('error', () => this.fail(invalid('The request body could not be read.')));
    req.pipe(this.counter).pipe(parser);
  }

  private onField(name: string, value: string, truncated: boolean): void {
    if (name === 'media_upload_id' || name === 'video')
      return this.fail(unsupported(`The "${name}" field is not supported. ${VIDEO_REFUSED}`));
    if (name !== 'metadata') {
      this.deferred ??= invalid(`Unexpected part "${name}"; send only "metadata" and "image".`);
      return;
    }
    if (truncated || Buffer.byteLength(value) > this.limits.metadataMaxBytes)
      return this.fail(metadataTooLarge(this.limits.metadataMaxBytes));
    // busboy decodes fields itself, turning invalid UTF-8 into U+FFFD: refuse rather than store mangled text.
    if (value.includes('\uFFFD')) return this.fail(notUtf8());
    this.setMetadata(value);
  }

  private onFile(name: string, stream: Readable, mimeType: string): void {
    // Parts the parser had buffered can still arrive after the request failed: never spool them.
    if (this.settled) {
      stream.resume();
      return;
    }
    if (name === 'video' || name === 'media_upload_id') {
      stream.resume();
      return this.fail(unsupported(`The "${name}" part is not supported. ${VIDEO_REFUSED}`));
    }
    if (name === 'metadata') return this.readMetadataFile(stream);
    if (name !== 'image' || this.storing) {
      stream.resume();
      this.deferred ??= invalid(
        name === 'image' ? 'Send one "image" part.' : `Unexpected part "${name}"; send only "metadata" and "image".`,
      );
      return;
    }
    const contentType = mimeType.toLowerCase();
    if (!this.limits.allowedImageTypes.includes(contentType)) {
      stream.resume();
      return this.fail(
        unsupported(`The image must be one of ${this.limits.allowedImageTypes.join(', ')}; got ${contentType}.`),
      );
    }
    this.storeImage(stream, contentType);
  }

  private setMetadata(value: string): void {
    if (this.metadata !== undefined) this.deferred ??= invalid('Send one "metadata" part.');
    this.metadata = value;
  }

  /** Metadata sent as a file (curl -F metadata=@meta.json): read it, bounded. */
  private readMetadataFile(stream: Readable): void {
    const chunks: Buffer[] = [];
    let size = 0;
    this.pendingWrites++;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > this.limits.metadataMaxBytes) return this.fail(metadataTooLarge(this.limits.metadataMaxBytes));
      chunks.push(chunk);
    });
    stream.on('end', () => {
      this.pendingWrites--;
      let value: string;
      try {
        value = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
      } catch {
        return this.fail(notUtf8());
      }
      this.setMetadata(value);
      this.finish();
    });
  }

  /** The image streams through the PNG head check into the sink, once. */
  private storeImage(stream: Readable, contentType: string): void {
    this.pendingWrites++;
    const check = pngHeadCheck();
    this.inspect = check;
    stream.on('limit', () => this.fail(tooLarge(this.limits.multipartMaxBytes)));
    check.on('error', (error) => this.fail(asDomainError(error)));
    stream.pipe(check);
    this.storing = this.sink(check, contentType);
    this.storing.then(
      (stored) => {
        this.pendingWrites--;
        if (this.settled) return void stored.discard();
        this.image = stored;
        this.finish();
      },
      (error: unknown) => {
        this.pendingWrites--;
        this.fail(asDomainError(error));
      },
    );
  }

  private finish(): void {
    if (this.settled || !this.parserClosed || this.pendingWrites > 0) return;
    if (this.deferred) return this.fail(this.deferred);
    if (this.metadata === undefined) return this.fail(invalid('The "metadata" part (JSON) is missing.'));
    if (!this.image) return this.fail(invalid('The "image" part (PNG) is missing.'));
    this.settled = true;
    this.resolve({ metadata: this.metadata, image: this.image });
  }

  private fail(error: DomainError): void {
    if (this.settled) return;
    this.settled = true;
    this.req.unpipe(this.counter);
    this.counter.unpipe(this.parser);
    this.counter.destroy();
    this.parser.removeAllListeners('close');
    drain(this.req, this.received);
    // Answer only once the sink has settled: a write it finished is discarded, one it had not
    // finished removes its own temporary object when its source errors.
    this.inspect?.destroy(error);
    const cleaned = this.storing
      ? this.storing.then(
          (stored) => stored.discard(),
          () => undefined,
        )
      : Promise.resolve();
    void cleaned.finally(() => this.reject(error));
  }
}

/** Passes the image through, refusing it on its first bytes when they are not a PNG's head. */
function pngHeadCheck(): Transform {
  let head = Buffer.alloc(0);
  return new Transform({
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

/** Reads and discards the whole body (at most DRAIN_CAP_BYTES, as its Content-Length said); resolves when it ended. */
function drained(req: Request): Promise<void> {
  return new Promise((resolve) => {
    req.once('end', resolve);
    req.once('close', resolve);
    req.once('error', () => resolve());
    drain(req, 0);
  });
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
