import { countFailOpen } from '@framedesk/observability';
import { type RequestHandler, Router } from 'express';
import { createRateLimiter } from '@framedesk/access';
import { createSemaphore } from '@framedesk/access';
import { publicVariantService } from '@framedesk/submissions';
import { publicOnRequest } from '../http/public-on-request';
import { buildOpenApiDocument } from '@framedesk/contracts';
import type { ApiDependencies } from '../dependencies';
import { authenticateAgent, rateLimitAgent } from '../http/authenticate';
import { keyConcurrency } from '../http/key-concurrency';
import { agentFeedbackRoutes } from './agent-feedback.routes';
import { frameSubmissionsRoutes } from './frame-submissions.routes';
import { mediaUploadsRoutes } from './media-uploads.routes';
import { mediaRoutes } from './media.routes';
import { openApiRoutes } from './openapi.routes';

/** `public` variants made on request at once per API process, and requests waiting for one. */
export const PUBLIC_MAKERS = 1;
export const PUBLIC_MAKERS_WAITING = 4;

// An unfinished claim blocks retries this long; a crashed request's retry waits at most this.
export const IDEMPOTENCY_LOCK_MS = 60_000;

/** The agent API: public docs and signed media, then everything under /v1 behind a Bearer key. */
export function agentApiRoutes(
  deps: ApiDependencies,
  perKey: RequestHandler = keyConcurrency(deps.settings.MCP_CONCURRENT_PER_KEY),
): Router {
  const router = Router();
  const idempotency = {
    lockMs: IDEMPOTENCY_LOCK_MS,
    retentionMs: deps.settings.IDEMPOTENCY_RETENTION_HOURS * 3_600_000,
  };
  router.use(openApiRoutes(buildOpenApiDocument(deps.config)));
  router.use(
    mediaRoutes({
      secret: deps.settings.SESSION_SECRET,
      submissions: deps.submissions,
      viewerMaySee: (reviewerId, submissionId) => deps.db.repos.review.visibleTo(reviewerId, submissionId),
      limiter: countFailOpen(
        createRateLimiter(deps.redis, {
          prefix: deps.settings.REDIS_PREFIX,
          limit: deps.settings.MEDIA_RATE_LIMIT_PER_MINUTE,
        }),
        'media',
        deps.redisOutage,
      ),
      logger: deps.logger,
      // One `public` made at a time in this process (a few requests wait for it); more are 202.
      publicOnRequest: publicOnRequest({
        publicVariant: publicVariantService({ db: deps.db, storage: deps.storage, config: deps.config }),
        queues: deps.queues,
        semaphore: createSemaphore(PUBLIC_MAKERS, PUBLIC_MAKERS_WAITING),
        logger: deps.logger,
      }),
    }),
  );
  router.use(
    '/v1',
    authenticateAgent(deps.apiKeys, deps.invalidKeys, deps.logger),
    rateLimitAgent(deps.rateLimiter, deps.logger),
  );
  router.use(
    frameSubmissionsRoutes({
      db: deps.db,
      submissions: deps.submissions,
      validators: deps.validators,
      idempotency,
      multipart: {
        metadataMaxBytes: deps.config.api.metadata_max_bytes,
        multipartMaxBytes: deps.config.media.multipart_max_bytes,
        allowedImageTypes: deps.config.media.allowed_image_mime_types.map((t) => t.toLowerCase()),
      },
    }),
  );
  router.use(agentFeedbackRoutes({ db: deps.db, perKey }));
  router.use(
    mediaUploadsRoutes({
      db: deps.db,
      submissions: deps.submissions,
      validators: deps.validators,
      idempotency,
      // The request fields plus metadata bounded by api.metadata_max_bytes.
      jsonMaxBytes: deps.config.api.metadata_max_bytes + 4096,
    }),
  );
  return router;
}
