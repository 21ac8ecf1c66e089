import express, { Router } from 'express';
import type { Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import type { RequestValidators, SubmissionsService } from '@framedesk/submissions';
import { callerOf } from '../http/authenticate';
import { annotateSubmission } from '../http/submission-span';
import { fingerprintOf, idempotencyKeyOf, runIdempotent } from '../http/idempotency';
import { methodNotAllowed } from '../http/problem';
import { type IdempotencySettings, sendCreated } from './frame-submissions.routes';

export interface MediaUploadsRouteDeps {
  readonly db: Database;
  readonly submissions: SubmissionsService;
  readonly validators: RequestValidators;
  readonly idempotency: IdempotencySettings;
  /** Largest JSON body accepted. */
  readonly jsonMaxBytes: number;
}

const PATH = '/v1/media-uploads';

/** POST (a video upload session and its submission) and GET one. */
export function mediaUploadsRoutes(deps: MediaUploadsRouteDeps): Router {
  const router = Router();
  const json = express.json({ limit: deps.jsonMaxBytes, strict: true, type: () => true });

  router.post(PATH, (req, _res, next) => {
    if (!req.is('application/json')) {
      next(new DomainError('unsupported_media_type', 'Send the upload request as Content-Type: application/json.'));
      return;
    }
    next();
  });
  router.post(PATH, json, async (req, res) => {
    const caller = callerOf(res);
    const key = idempotencyKeyOf(req);
    const request = deps.validators.mediaUploadRequest(req.body);
    const fingerprint = fingerprintOf('POST', PATH, req.body);
    const result = await runIdempotent(
      deps.db,
      { apiKeyId: caller.apiKeyId, key, fingerprint, ...deps.idempotency },
      (token) => deps.submissions.createVideoUpload({ caller, request, idempotency: token }),
    );
    annotateSubmission({
      submissionId: (result.body as { submission_id: string }).submission_id,
      agentSlug: caller.agentSlug,
      channelSlug: request.channel_slug,
      mediaType: 'video',
      outcome: result.replayed ? 'replayed' : 'accepted',
    });
    sendCreated(res, result, `${PATH}/${(result.body as { id: string }).id}`);
  });

  router.get(`${PATH}/:id`, async (req, res) => {
    res.json(await deps.submissions.getUpload(callerOf(res), req.params['id'] ?? ''));
  });

  router.all(PATH, methodNotAllowed(['POST']));
  router.all(`${PATH}/:id`, methodNotAllowed(['GET']));
  return router;
}
