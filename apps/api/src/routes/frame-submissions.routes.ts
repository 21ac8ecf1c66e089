import { type Response, Router } from 'express';
import type { Database } from '@framedesk/db';
import { DomainError, isSubmissionStatus } from '@framedesk/domain';
import { LIST_LIMIT_MAX } from '@framedesk/contracts';
import type { RequestValidators, SubmissionsService } from '@framedesk/submissions';
import { callerOf } from '../http/authenticate';
import { annotateSubmission } from '../http/submission-span';
import { fingerprintOf, idempotencyKeyOf, type IdempotentResult, runIdempotent } from '../http/idempotency';
import { type MultipartLimits, receiveFrameParts } from '../http/multipart';
import { methodNotAllowed } from '../http/problem';

export interface IdempotencySettings {
  readonly lockMs: number;
  readonly retentionMs: number;
}

export interface FrameSubmissionsRouteDeps {
  readonly db: Database;
  readonly submissions: SubmissionsService;
  readonly validators: RequestValidators;
  readonly multipart: MultipartLimits;
  readonly idempotency: IdempotencySettings;
}

/** Sends a create's answer, first or replayed (`Idempotent-Replayed: true`). */
export function sendCreated(res: Response, result: IdempotentResult, location: string | undefined): void {
  if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (location) res.setHeader('Location', location);
  res.status(result.status).json(result.body);
}

const PATH = '/v1/frame-submissions';

/** POST (image frames), GET list and GET one. Authentication is mounted in front (app.ts). */
export function frameSubmissionsRoutes(deps: FrameSubmissionsRouteDeps): Router {
  const router = Router();

  router.post(PATH, async (req, res) => {
    const caller = callerOf(res);
    // The image streams once, into the storage driver's temporary object; from here on it is
    // either referenced by a committed submission or discarded before we answer.
    const parts = await receiveFrameParts(req, deps.multipart, (body, contentType) =>
      deps.submissions.stageImage(body, contentType),
    );
    let result: IdempotentResult;
    try {
      const key = idempotencyKeyOf(req);
      let parsed: unknown;
      try {
        parsed = JSON.parse(parts.metadata);
      } catch {
        throw new DomainError('invalid_request', 'The metadata part is not valid JSON.');
      }
      const metadata = deps.validators.frameMetadata(parsed);
      const fingerprint = fingerprintOf('POST', PATH, { metadata: parsed, image_sha256: parts.image.sha256 });
      const request = { caller, metadata, image: parts.image };
      // A new key on an allowed channel: one statement. Anything else (replay, in flight, an
      // abandoned claim to take over, 403) takes the general path, which decides as it always did.
      const created = await deps.submissions.createImageSubmissionAtOnce({
        ...request,
        idempotency: { apiKeyId: caller.apiKeyId, key, fingerprint, retentionMs: deps.idempotency.retentionMs },
      });
      result = created
        ? { ...created, replayed: false }
        : await runIdempotent(deps.db, { apiKeyId: caller.apiKeyId, key, fingerprint, ...deps.idempotency }, (token) =>
            deps.submissions.createImageSubmission({ ...request, idempotency: token }),
          );
    } catch (error) {
      await parts.image.discard();
      throw error;
    }
    if (result.replayed) await parts.image.discard();
    const created = result.body as { id: string; agent_slug: string; channel_slug: string };
    annotateSubmission({
      submissionId: created.id,
      agentSlug: created.agent_slug,
      channelSlug: created.channel_slug,
      mediaType: 'image',
      outcome: result.replayed ? 'replayed' : 'accepted',
    });
    sendCreated(res, result, `${PATH}/${created.id}`);
  });

  router.get(PATH, async (req, res) => {
    const caller = callerOf(res);
    const query = req.query as Record<string, unknown>;
    const errors: { pointer: string; detail: string }[] = [];
    for (const name of Object.keys(query)) {
      if (!['channel_slug', 'status', 'cursor', 'limit'].includes(name))
        errors.push({ pointer: `/query/${name}`, detail: 'is not a known parameter' });
    }
    const single = (name: string): string | undefined => {
      const value = query[name];
      if (value === undefined) return undefined;
      if (typeof value !== 'string') {
        errors.push({ pointer: `/query/${name}`, detail: 'must be given once' });
        return undefined;
      }
      return value;
    };
    const status = single('status');
    const channelSlug = single('channel_slug');
    const cursor = single('cursor');
    const limitText = single('limit');
    if (status !== undefined && !isSubmissionStatus(status))
      errors.push({ pointer: '/query/status', detail: 'is not a status' });
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX)) {
      errors.push({ pointer: '/query/limit', detail: `must be an integer from 1 to ${LIST_LIMIT_MAX}` });
    }
    if (errors.length > 0)
      throw new DomainError('validation_failed', 'The query failed validation; see errors.', { errors });
    res.json(
      await deps.submissions.listSubmissions(caller, {
        ...(channelSlug !== undefined ? { channel_slug: channelSlug } : {}),
        ...(status !== undefined && isSubmissionStatus(status) ? { status } : {}),
        ...(cursor !== undefined ? { cursor } : {}),
        ...(limit !== undefined ? { limit } : {}),
      }),
    );
  });

  router.get(`${PATH}/:id`, async (req, res) => {
    res.json(await deps.submissions.getSubmission(callerOf(res), req.params['id'] ?? ''));
  });

  router.all(PATH, methodNotAllowed(['GET', 'POST']));
  router.all(`${PATH}/:id`, methodNotAllowed(['GET']));
  return router;
}
