import { Readable } from 'node:stream';
import type { MediaUploadWithSubmission } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { VIDEO_SNIFF_BYTES } from '@framedesk/media';
import { peekHead, type VideoUploadService } from '@framedesk/submissions';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import type { TusCompletion } from './tus-completion';
import type { SessionTusStore } from './tus-store';

const OCTET = 'application/offset+octet-stream';

export const idOf = (url: string) => decodeURIComponent(new URL(url, 'http://x').pathname.split('/').pop() ?? '');
export const tokenOf = (url: string) => new URL(url, 'http://x').searchParams.get('token') ?? '';

/** The Express request as the web Request `@tus/server` reads, with `body` as its stream. */
export function toWebRequest(req: ExpressRequest, body: Readable | null): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'connection' || name === 'transfer-encoding') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers };
  if (body) {
    init.body = Readable.toWeb(body) as ReadableStream;
    init.duplex = 'half';
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, init);
}

/**
 * Our checks of a tus request against its session, before tus (and so the store) sees it:
 * lengths, offsets and content types, and the container sniffed on the first bytes.
 */
export function tusRequestChecks(deps: {
  readonly uploads: VideoUploadService;
  readonly store: SessionTusStore;
  readonly completion: TusCompletion;
}) {
  /** The container check on the first bytes, before tus (and so the store) sees any. */
  async function sniffed(req: ExpressRequest, res: ExpressResponse, size: number): Promise<Readable> {
    const { head, body } = await peekHead(req, Math.min(VIDEO_SNIFF_BYTES, size));
    try {
      deps.uploads.checkContainer(head);
    } catch (error) {
      res.setHeader('Connection', 'close');
      throw error;
    }
    return body;
  }

  async function checkPost(
    req: ExpressRequest,
    res: ExpressResponse,
    session: MediaUploadWithSubmission,
  ): Promise<Readable | null> {
    const size = Number(session.byteSize);
    if (req.get('upload-defer-length') !== undefined)
      throw new DomainError('invalid_request', 'Upload-Length is required (no deferred length).');
    const length = Number(req.get('upload-length'));
    if (!/^\d+$/.test(req.get('upload-length') ?? ''))
      throw new DomainError('invalid_request', 'Upload-Length is required (no deferred length).');
    if (length > size)
      throw new DomainError('payload_too_large', `Upload-Length ${length} exceeds the declared byte_size ${size}.`);
    if (length !== size)
      throw new DomainError('invalid_request', `Upload-Length must equal the declared byte_size ${size}.`);
    if (req.get('content-type') !== OCTET) return null;
    const existing = await deps.store.getUpload(session.id).catch(() => undefined);
    if (existing && existing.offset > 0)
      throw new DomainError(
        'upload_offset_mismatch',
        `This upload already holds ${existing.offset} bytes; resume with HEAD and PATCH.`,
      );
    return sniffed(req, res, size);
  }

  async function checkPatch(
    req: ExpressRequest,
    res: ExpressResponse,
    session: MediaUploadWithSubmission,
  ): Promise<Readable> {
    const size = Number(session.byteSize);
    const contentLength = req.get('content-length');
    if (req.get('content-type') !== OCTET)
      throw new DomainError('unsupported_media_type', `PATCH needs Content-Type: ${OCTET}.`);
    const offset = req.get('upload-offset') ?? '';
    if (!/^\d+$/.test(offset)) throw new DomainError('invalid_request', 'Upload-Offset is required.');
    // Refused before any lock or byte: an overshooting PATCH changes nothing, so it can
    // never spoil an upload another request is writing.
    if (contentLength && Number(offset) + Number(contentLength) > size) {
      res.setHeader('Connection', 'close');
      throw new DomainError('payload_too_large', `This PATCH would pass the declared byte_size ${size}.`);
    }
    await deps.completion.ensureCreated(session);
    return Number(offset) === 0 ? sniffed(req, res, size) : req;
  }

  /** Checks the request against the session and returns the body tus may read. */
  return async function prepare(
    req: ExpressRequest,
    res: ExpressResponse,
    session: MediaUploadWithSubmission,
  ): Promise<Readable | null> {
    switch (req.method) {
      case 'POST':
        return checkPost(req, res, session);
      case 'PATCH':
        return checkPatch(req, res, session);
      case 'HEAD':
      case 'DELETE':
        await deps.completion.ensureCreated(session);
        return null;
      default:
        throw new DomainError('method_not_allowed', `${req.method} is not a tus method.`);
    }
  };
}
