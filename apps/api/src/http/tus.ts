import type { MediaUploadWithSubmission } from '@framedesk/db';
import { DomainError, type ErrorCode } from '@framedesk/domain';
import type { VideoUploadService } from '@framedesk/submissions';
import { Server } from '@tus/server';
import type { Locker } from '@tus/utils';
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express';
import { tusCompletion } from './tus-completion';
import { idOf, tokenOf, toWebRequest, tusRequestChecks } from './tus-requests';
import type { SessionTusStore } from './tus-store';
import { asUnavailable } from './unavailable';

const TUS_VERSION = '1.0.0';
const MOUNT = '/uploads/tus';

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

/** Per request: the authorised session, our request id, and a domain error a hook raised. */
interface RequestState {
  readonly sessions: WeakMap<Request, MediaUploadWithSubmission>;
  readonly requestIds: WeakMap<Request, string>;
  readonly failures: WeakMap<Request, DomainError>;
}

function tusServer(deps: TusDeps, state: RequestState, completion: ReturnType<typeof tusCompletion>): Server {
  return new Server({
    path: MOUNT,
    datastore: deps.store,
    locker: deps.locker,
    maxSize: (req) => Number(state.sessions.get(req)?.byteSize ?? 0),
    namingFunction: (req) => idOf(req.url),
    getFileIdFromRequest: (req) => idOf(req.url),
    generateUrl: (req, { path, id }) =>
      `${path}/${encodeURIComponent(id)}?token=${encodeURIComponent(tokenOf(req.url))}`,
    disableTerminationForFinishedUploads: true,
    async onUploadFinish(req) {
      const session = state.sessions.get(req);
      if (!session) throw new DomainError('not_found', 'No upload session matches this URL.');
      const asker = { token: tokenOf(req.url), requestId: state.requestIds.get(req) };
      // Not completed: the stored bytes were lost and the upload starts again (tus-completion.ts).
      if (!(await completion.complete(session, asker)))
        throw new DomainError('upload_offset_mismatch', 'The stored upload was lost; HEAD again and resend.');
      return {};
    },
    async onResponseError(req, error) {
      // Storage (or PostgreSQL) down while tus reads or writes the upload: 503 with Retry-After,
      // the client resumes from HEAD later; tus would answer a bare 500.
      const failure = error instanceof DomainError ? error : asUnavailable(error);
      if (failure) {
        state.failures.set(req, failure);
        return { status_code: failure.status, body: failure.message };
      }
      return undefined;
    },
  });
}

/** The session the URL names (404 / 409 / 410 otherwise); OPTIONS needs none. */
async function sessionOf(
  uploads: VideoUploadService,
  req: ExpressRequest,
  res: ExpressResponse,
): Promise<MediaUploadWithSubmission | undefined> {
  const authorize = () => uploads.authorize(idOf(req.originalUrl), tokenOf(req.originalUrl));
  if (req.method === 'OPTIONS') return authorize().catch(() => undefined);
  res.setHeader('Tus-Resumable', TUS_VERSION);
  if (req.get('tus-resumable') !== TUS_VERSION)
    throw new DomainError('tus_version_unsupported', 'Send Tus-Resumable: 1.0.0.', {
      headers: { 'Tus-Version': TUS_VERSION },
    });
  return authorize();
}

/**
 * The local provider's resumable uploads, served by `@tus/server` (core, creation,
 * creation-with-upload, termination, expiration) over a store every instance reaches. Around
 * it: the one-time token is the credential, the session's byte_size the exact length, the
 * container is sniffed before the first byte is kept, and the last byte hands the media to
 * processing (once, under the upload's lock: tus-completion.ts). Errors leave as problem+json
 * with the error table's codes.
 */
export function tusHandler(deps: TusDeps): RequestHandler {
  const state: RequestState = { sessions: new WeakMap(), requestIds: new WeakMap(), failures: new WeakMap() };
  const completion = tusCompletion(deps);
  const server = tusServer(deps, state, completion);
  const prepare = tusRequestChecks({ ...deps, completion });

  return async (req, res, next) => {
    try {
      res.setHeader('Cache-Control', 'no-store');
      const session = await sessionOf(deps.uploads, req, res);
      const body = session && req.method !== 'OPTIONS' ? await prepare(req, res, session) : null;
      const requestId = res.locals['requestId'] as string;
      const asker = { token: tokenOf(req.originalUrl), requestId };
      if (session && req.method === 'HEAD' && (await completion.finishStored(session, asker))) {
        const size = String(session.byteSize);
        res.setHeader('Upload-Offset', size);
        res.setHeader('Upload-Length', size);
        return void res.status(200).end();
      }
      const request = toWebRequest(req, body);
      if (session) state.sessions.set(request, session);
      state.requestIds.set(request, requestId);
      const response = await server.handleWeb(request);
      const failure = state.failures.get(request);
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
