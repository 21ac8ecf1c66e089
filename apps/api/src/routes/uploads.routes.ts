import { type Request, type RequestHandler, Router } from 'express';
import multer from 'multer';
import { DomainError } from '@framedesk/domain';
import type { CompletedUpload, VideoUploadService } from '@framedesk/submissions';

const TUS_VERSION = '1.0.0';

const tokenOf = (req: Request) => (typeof req.query['token'] === 'string' ? req.query['token'] : undefined);
const uploadIdOf = (req: Request) => String(req.params['uploadId']);

function completedBody(done: CompletedUpload) {
  return { upload_id: done.uploadId, submission_id: done.submissionId, status: done.status, byte_size: done.byteSize };
}

/** One multipart POST with the field `file`, streamed through the upload service (no buffering). */
function basicUpload(uploads: VideoUploadService): RequestHandler {
  return async (req, res, next) => {
    // A refused body is not read to its end: close the connection rather than drain it.
    const refuse = (error: unknown) => {
      res.setHeader('Connection', 'close');
      next(error);
    };
    try {
      const upload = await uploads.authorize(uploadIdOf(req), tokenOf(req));
      let done: CompletedUpload | undefined;
      const storage: multer.StorageEngine = {
        _handleFile(_req, file, callback) {
          if (file.fieldname !== 'file')
            return callback(
              new DomainError(
                'invalid_request',
                `Unexpected file field "${file.fieldname}"; send the video as "file".`,
              ),
            );
          uploads.receiveFile(upload, file.stream).then(
            (result) => {
              done = result;
              callback(null, { size: result.byteSize });
            },
            (error: unknown) => callback(error as Error),
          );
        },
        _removeFile(_req, _file, callback) {
          callback(null);
        },
      };
      const parse = multer({
        storage,
        limits: { files: 1, fields: 8, fieldSize: 1024, parts: 10, fileSize: Number(upload.byteSize) + 1 },
      }).single('file');
      await new Promise<void>((resolve, reject) =>
        parse(req, res, (error: unknown) => (error ? reject(error) : resolve())),
      );
      if (!done)
        throw new DomainError('invalid_request', 'Send the video as multipart/form-data with the field "file".');
      res.status(201).json(completedBody(done));
    } catch (error) {
      if (error instanceof multer.MulterError) {
        const code = error.code === 'LIMIT_FILE_SIZE' ? 'payload_too_large' : 'invalid_request';
        return refuse(new DomainError(code, `The multipart body was refused: ${error.message}.`));
      }
      refuse(error);
    }
  };
}

/** tus 1.0 core + creation + termination on the session's own URL (REFERENCE.md). */
function tusRoutes(uploads: VideoUploadService): Router {
  const router = Router();
  router.options('/:uploadId', (_req, res) => {
    res
      .set({ 'Tus-Resumable': TUS_VERSION, 'Tus-Version': TUS_VERSION, 'Tus-Extension': 'creation,termination' })
      .status(204)
      .end();
  });
  router.use('/:uploadId', (req, res, next) => {
    res.setHeader('Tus-Resumable', TUS_VERSION);
    res.setHeader('Cache-Control', 'no-store');
    if (req.get('tus-resumable') !== TUS_VERSION) {
      return next(
        new DomainError('tus_version_unsupported', 'Send Tus-Resumable: 1.0.0.', {
          headers: { 'Tus-Version': TUS_VERSION },
        }),
      );
    }
    next();
  });
  // Creation: the session already exists, so this only checks the length and names its URL.
  router.post('/:uploadId', async (req, res) => {
    const upload = await uploads.authorize(uploadIdOf(req), tokenOf(req));
    const length = Number(req.get('upload-length'));
    if (!Number.isSafeInteger(length) || length < 0)
      throw new DomainError('invalid_request', 'Upload-Length is required (no deferred length).');
    if (length > Number(upload.byteSize))
      throw new DomainError(
        'payload_too_large',
        `Upload-Length ${length} exceeds the declared byte_size ${upload.byteSize}.`,
      );
    if (length !== Number(upload.byteSize))
      throw new DomainError('invalid_request', `Upload-Length must equal the declared byte_size ${upload.byteSize}.`);
    const { offset } = await uploads.tusOffset(upload);
    res
      .set({ Location: req.originalUrl, 'Upload-Offset': String(offset) })
      .status(201)
      .end();
  });
  router.head('/:uploadId', async (req, res) => {
    const { offset, length } = await uploads.tusOffset(await uploads.authorize(uploadIdOf(req), tokenOf(req)));
    res
      .set({ 'Upload-Offset': String(offset), 'Upload-Length': String(length) })
      .status(200)
      .end();
  });
  router.patch('/:uploadId', async (req, res) => {
    const upload = await uploads.authorize(uploadIdOf(req), tokenOf(req));
    if (req.get('content-type') !== 'application/offset+octet-stream') {
      throw new DomainError('unsupported_media_type', 'PATCH needs Content-Type: application/offset+octet-stream.');
    }
    const offset = Number(req.get('upload-offset'));
    if (!/^\d+$/.test(req.get('upload-offset') ?? '') || !Number.isSafeInteger(offset))
      throw new DomainError('invalid_request', 'Upload-Offset is required.');
    const declared = req.get('content-length');
    if (declared && offset + Number(declared) > Number(upload.byteSize)) {
      await uploads.tusTerminate(upload);
      res.setHeader('Connection', 'close');
      throw new DomainError(
        'payload_too_large',
        `This PATCH would pass the declared byte_size ${upload.byteSize}; the partial upload was dropped.`,
      );
    }
    try {
      const result = await uploads.tusAppend(upload, offset, req);
      res
        .set({ 'Upload-Offset': String(result.offset) })
        .status(204)
        .end();
    } catch (error) {
      if (error instanceof DomainError && error.status === 413) res.setHeader('Connection', 'close');
      throw error;
    }
  });
  router.delete('/:uploadId', async (req, res) => {
    await uploads.tusTerminate(await uploads.authorize(uploadIdOf(req), tokenOf(req)));
    res.status(204).end();
  });
  return router;
}

/**
 * The local video provider's `upload_url`s. Mounted before any body parser: the bytes are
 * streamed to the spool as they arrive. The one-time token in the URL is the credential.
 */
export function uploadsRoutes(uploads: VideoUploadService): Router {
  const router = Router();
  router.post('/basic/:uploadId', basicUpload(uploads));
  router.use('/tus', tusRoutes(uploads));
  return router;
}
