import { type Request, type RequestHandler, Router } from 'express';
import multer from 'multer';
import { DomainError } from '@framedesk/domain';
import type { CompletedUpload, VideoUploadService } from '@framedesk/submissions';
import { type TusDeps, tusHandler } from '../http/tus';

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
          uploads.receiveFile(upload, file.stream, { requestId: res.locals['requestId'] as string }).then(
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

/**
 * The local video provider's `upload_url`s. Mounted before any body parser: the bytes are
 * streamed to the spool (basic) or the shared tus store as they arrive. The one-time token in the URL is the credential.
 */
export function uploadsRoutes(uploads: VideoUploadService, tus: Omit<TusDeps, 'uploads'>): Router {
  const router = Router();
  router.post('/basic/:uploadId', basicUpload(uploads));
  router.all('/tus/:uploadId', tusHandler({ ...tus, uploads }));
  return router;
}
