import { Readable } from 'node:stream';
import type { MediaUploadWithSubmission } from '@framedesk/db';
import { DomainError, type ErrorCode } from '@framedesk/domain';
import { peekHead, type VideoUploadService } from '@framedesk/submissions';
import { Server } from '@tus/server';
import type { Locker } from '@tus/utils';
import { type Request as ExpressRequest, type RequestHandler, type Response as ExpressResponse } from 'express';
import { VIDEO_SNIFF_BYTES } from '@framedesk/media';
import { isTusNotFound, type SessionTusStore } from './tus-store';
import { asUnavailable } from './unavailable';

const TUS_VERSION = '1.0.0';
const MOUNT = '/uploads/tus';
const OCTET = 'application/offset+octet-stream';

/** tus answers in plain text; each status becomes one of our problem codes. */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  403: 'invalid_request',
  404: 'not_found',
  409: 'upload_offset_mismatch',
  410: 'upload_expired',
  412: 'tus_version_unsupported',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export interface TusDeps {
  readonly uploads: VideoUploadService;
  readonly store: SessionTusStore;
  readonly locker: Locker;
}

const idOf = (url: string) => decodeURIComponent(new URL(url, 'http://x').pathname.split('/').pop() ?? '');
const tokenOf = (url: string) => new URL(url, 'http://x').searchParams.get('token') ?? '';

/**
 * The local provider's resumable uploads, served by `@tus/server` (core, creation,
 * creation-with-upload, termination, expiration) over a store every instance reaches. Around
 * it: the one-time token is the credential, the session's byte_size the exact length, the
 * container is sniffed before the first byte is kept, and the last byte hands the media to
 * processing. Errors leave as problem+json with the error table's codes.
 */
export function tusHandler(deps: TusDeps): RequestHandler {
  // Per request: the authorised session, our request id, and a domain error a hook raised.
  const sessions = new WeakMap<Request, MediaUploadWithSubmission>();
  const requestIds = new WeakMap<Request, string>();
  const failures = new WeakMap<Request, DomainError>();
  const server = new Server({
    path: MOUNT,
    datastore: deps.store,
    locker: deps.locker,
    maxSize: (req) => Number(sessions.get(req)?.byteSize ?? 0),
    namingFunction: (req) => idOf(req.url),
    getFileIdFromRequest: (req) => idOf(req.url),
    generateUrl: (req, { path, id }) =>
      `${path}/${encodeURIComponent(id)}?token=${encodeURIComponent(tokenOf(req.url))}`,
    disableTerminationForFinishedUploads: true,
    async onUploadFinish(req, upload) {
      const session = sessions.get(req);
      if (!session) throw new DomainError('not_found', 'No upload session matches this URL.');
      await deps.uploads.completeStored(session, await deps.store.read(upload.id), { requestId: requestIds.get(req) });
      await deps.store.discard(upload.id).catch(() => undefined);
      return {};
    },
    async onResponseError(req, error) {
      // Storage (or PostgreSQL) down while tus reads or writes the upload: 503 with Retry-After,
      // the client resumes from HEAD later; tus would answer a bare 500.
      const failure = error instanceof DomainError ? error : asUnavailable(error);
      if (failure) {
        failures.set(req, failure);
        return { status_code: failure.status, body: failure.message };
      }
      return undefined;
    },
  });

  /** tus needs the upload to exist; the session URL is usable before any POST (as before). */
  async function ensureCreated(session: MediaUploadWithSubmission): Promise<void> {
    try {
      await deps.store.getUpload(session.id);
      return;
    } catch (error) {
      if (!isTusNotFound(error)) throw error;
    }
    const lock = deps.locker.newLock(session.id);
    await lock.lock(new AbortController().signal, () => undefined);
    try {
      await deps.store.ensure(session.id, Number(session.byteSize));
    } finally {
      await lock.unlock();
    }
  }

  /**
   * A HEAD on an upload whose bytes are all stored but whose session is still open (the
   * completion after the last PATCH failed: storage or PostgreSQL down, the instance killed)
   * finishes it now, under the upload's lock, so "all bytes here" is never answered for media
   * the service has not taken in. Returns whether it finished one; throws (503) if it cannot.
   */
  async function finishStored(session: MediaUploadWithSubmission, requestId: string | undefined): Promise<boolean> {
    const upload = await deps.store.getUpload(session.id);
    if (upload.size === undefined || upload.offset !== upload.size) return false;
    const lock = deps.locker.newLock(session.id);
    await lock.lock(new AbortController().signal, () => undefined);
    try {
      await deps.uploads.completeStored(session, await deps.store.read(session.id), { requestId });
    } finally {
      await lock.unlock();
    }
    await deps.store.discard(session.id).catch(() => undefined);
    return true;
  }

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

  /** Checks the request against the session and returns the body tus may read. */
  async function prepare(
    req: ExpressRequest,
    res: ExpressResponse,
    session: MediaUploadWithSubmission,
  ): Promise<Readable | null> {
    const size = Number(session.byteSize);
    const contentLength = req.get('content-length');
    switch (req.method) {
      case 'POST': {
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
      case 'PATCH': {
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
        await ensureCreated(session);
        return Number(offset) === 0 ? sniffed(req, res, size) : req;
      }
      case 'HEAD':
      case 'DELETE':
        await ensureCreated(session);
        return null;
      default:
        throw new DomainError('method_not_allowed', `${req.method} is not a tus method.`);
    }
  }

  function toWebRequest(req: ExpressRequest, body: Readable | null): Request {
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

  return async (req, res, next) => {
    try {
      res.setHeader('Cache-Control', 'no-store');
      let session: MediaUploadWithSubmission | undefined;
      if (req.method !== 'OPTIONS') {
        res.setHeader('Tus-Resumable', TUS_VERSION);
        if (req.get('tus-resumable') !== TUS_VERSION)
          throw new DomainError('tus_version_unsupported', 'Send Tus-Resumable: 1.0.0.', {
            headers: { 'Tus-Version': TUS_VERSION },
          });
        session = await deps.uploads.authorize(idOf(req.originalUrl), tokenOf(req.originalUrl));
      } else {
        session = await deps.uploads.authorize(idOf(req.originalUrl), tokenOf(req.originalUrl)).catch(() => undefined);
      }
      const body = session && req.method !== 'OPTIONS' ? await prepare(req, res, session) : null;
      if (session && req.method === 'HEAD' && (await finishStored(session, res.locals['requestId'] as string))) {
        const size = String(session.byteSize);
        res.setHeader('Upload-Offset', size);
        res.setHeader('Upload-Length', size);
        return void res.status(200).end();
      }
      const request = toWebRequest(req, body);
      if (session) sessions.set(request, session);
      requestIds.set(request, res.locals['requestId'] as string);
      const response = await server.handleWeb(request);
      const failure = failures.get(request);
      if (failure || response.status >= 400) {
        if (req.method === 'PATCH' || req.method === 'POST') res.setHeader('Connection', 'close');
        const text = failure ? '' : (await response.text()).trim();
        return next(failure ?? new DomainError(CODE_OF_STATUS[response.status] ?? 'internal_error', text));
      }
      const offset = response.headers.get('upload-offset');
      if (session && offset !== null && req.method !== 'HEAD')
        await deps.uploads.recordProgress(session.id, Number(offset));
      res.status(response.status);
      response.headers.forEach((value, name) => res.setHeader(name, value));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      next(error);
    }
  };
}
