import { countFailOpen } from '@framedesk/observability';
import express, { type Request, Router } from 'express';
import {
  createRateLimiter,
  invitesService,
  oidcRelyingParty,
  reviewerSessionsService,
  type ReviewerSessionsService,
  signMediaUrl,
  ssoService,
} from '@framedesk/access';
import { DomainError, isId } from '@framedesk/domain';
import {
  exportAudit,
  parseAuditQuery,
  parseBatchDecision,
  parseDecision,
  parseInternalNote,
  parseNoteMoments,
  parseVisibility,
  type QueueDepth,
  REJECT_REASONS,
  reviewService,
  type ViewerMediaUrlFn,
} from '@framedesk/review';
import { reviewChangePublisher } from '@framedesk/queues';
import { nearDuplicateSettings } from '@framedesk/submissions';
import type { ApiDependencies } from '../dependencies';
import { requireJson } from '../http/json-body';
import { rateLimitMedia, sendMedia } from '../http/media-delivery';
import {
  clearSessionCookie,
  readSessionCookie,
  requireAdmin,
  requireReviewer,
  reviewerOf,
} from '../http/reviewer-session';
import { opsWorkersHandler } from './ops-workers.routes';
import { peopleRoutes } from './people.routes';
import { POLICY_PATH, policiesRoutes } from './policies.routes';
import { reviewEventsHandler, type StreamAccess } from './review-events';
import { sessionBody, signInRoutes } from './sign-in.routes';
import { teamRoutes } from './team.routes';

export interface ReviewRoutesOptions {
  /** Depth of each job queue (the ops page); defaults to asking the queue producer. */
  readonly queueDepths?: () => Promise<Record<string, QueueDepth>>;
  /** URL of a stored media object for the browser, issued to one reviewer. */
  readonly mediaUrl?: ViewerMediaUrlFn;
}

function defaultQueueDepths(deps: ApiDependencies) {
  return async () => {
    const counts = await deps.queues.counts();
    return Object.fromEntries(
      Object.entries(counts).map(([name, c]) => [
        name,
        {
          waiting: (c['waiting'] ?? 0) + (c['prioritized'] ?? 0),
          active: c['active'] ?? 0,
          delayed: c['delayed'] ?? 0,
          failed: c['failed'] ?? 0,
        },
      ]),
    );
  };
}

const HOUR_MS = 3600_000;

/**
 * Signed media URLs that stay the same for an hour, so polling does not reload every image; each
 * names the reviewer it was issued to and works only while they may see the frame.
 */
function signedMediaUrl(secret: string): ViewerMediaUrlFn {
  return (submissionId, name, viewer) => {
    const expiresAt = new Date((Math.ceil(Date.now() / HOUR_MS) + 1) * HOUR_MS);
    return signMediaUrl(secret, { submissionId, name, viewer }, expiresAt);
  };
}

function submissionId(req: Request): string {
  const id = String(req.params['id']);
  if (!isId('submission', id)) throw new DomainError('not_found', `No submission ${id}.`);
  return id;
}

/** Single sign-on, when OIDC_ISSUER_URL is set: the relying party and who it lets in. */
function singleSignOn(deps: ApiDependencies) {
  const s = deps.settings;
  if (!s.OIDC_ISSUER_URL || !s.OIDC_CLIENT_ID) return undefined;
  return {
    relyingParty: oidcRelyingParty({
      issuerUrl: s.OIDC_ISSUER_URL,
      clientId: s.OIDC_CLIENT_ID,
      clientSecret: s.OIDC_CLIENT_SECRET,
      redirectUri: new URL('/review/oidc/callback', deps.config.api.base_url).toString(),
      scopes: s.OIDC_SCOPES,
      secret: s.SESSION_SECRET,
    }),
    people: ssoService(deps.db, {
      autoProvision: s.OIDC_AUTO_PROVISION,
      requireVerifiedEmail: s.OIDC_REQUIRE_VERIFIED_EMAIL,
      groupsClaim: s.OIDC_GROUPS_CLAIM,
      groupMapping: s.OIDC_GROUP_MAPPING,
      warn: (message) => deps.logger.warn(message),
    }),
  };
}

/** What an open event stream re-reads when its reviewer's access changes. */
function streamAccess(deps: ApiDependencies, sessions: ReviewerSessionsService): StreamAccess {
  return {
    reviewer: (token) => sessions.authenticate(token),
    memberChannels: (reviewerId) => deps.db.repos.review.memberChannelIds(reviewerId),
    channelOf: (submissionId) => deps.db.repos.review.channelOf(submissionId),
    onChange: (listener) => deps.accessChanges.subscribe(listener),
  };
}

/** `/review/*`: the workbench's API. Cookie sessions only; parse, authorize, delegate. */
export function reviewRoutes(deps: ApiDependencies, options: ReviewRoutesOptions = {}): Router {
  const sessions = reviewerSessionsService(deps.db, deps.redis, {
    ttlHours: deps.settings.SESSION_TTL_HOURS,
    attemptsPer15Minutes: deps.settings.LOGIN_ATTEMPTS_PER_15_MINUTES,
    concurrentPasswordChecks: deps.settings.LOGIN_CONCURRENT_CHECKS,
    keyPrefix: deps.settings.REDIS_PREFIX,
    passwordLogin: { enabled: deps.settings.PASSWORD_LOGIN, breakGlassEmail: deps.settings.BREAK_GLASS_ADMIN_EMAIL },
  });
  const invites = invitesService(deps.db, {
    secret: deps.settings.SESSION_SECRET,
    ttlHours: deps.settings.INVITE_TTL_HOURS,
    baseUrl: deps.config.api.base_url,
    passwordLogin: deps.settings.PASSWORD_LOGIN,
  });
  const review = reviewService({
    db: deps.db,
    storage: deps.storage,
    mediaUrl: options.mediaUrl ?? signedMediaUrl(deps.settings.SESSION_SECRET),
    queues: deps.queues,
    queueDepths: options.queueDepths ?? defaultQueueDepths(deps),
    changes: reviewChangePublisher(deps.redis, deps.settings.REDIS_PREFIX),
    nearDuplicates: nearDuplicateSettings(deps.settings),
    decisions: deps.pipeline,
  });
  const cookieOptions = { trustProxy: deps.settings.TRUST_PROXY !== false };
  const router = Router();

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  const json = express.json({ limit: '16kb' });
  // A policy is parsed after the admin check, with its own limit (policies.routes.ts).
  router.use((req, res, next) => (POLICY_PATH.test(req.path) ? next() : json(req, res, next)));

  router.use(signInRoutes({ api: deps, sessions, invites, cookies: cookieOptions, sso: singleSignOn(deps) }));

  router.use(requireReviewer(sessions, cookieOptions));

  router.get('/session', (_req, res) => {
    res.json({ ...sessionBody(reviewerOf(res)), reject_reasons: REJECT_REASONS });
  });

  router.delete('/session', async (req, res) => {
    await sessions.logout(reviewerOf(res));
    clearSessionCookie(req, res, cookieOptions);
    res.status(204).end();
  });

  router.get('/queue', async (req, res) => {
    res.json(await review.queue(req.query as Record<string, unknown>, reviewerOf(res)));
  });

  router.get('/stats', async (req, res) => {
    res.json(await review.stats(req.query as Record<string, unknown>, reviewerOf(res)));
  });

  router.get('/channels', async (_req, res) => {
    res.json(await review.channels(reviewerOf(res)));
  });

  router.get('/channels/:slug/timeline', async (req, res) => {
    res.json(await review.timeline(String(req.params['slug']), req.query as Record<string, unknown>, reviewerOf(res)));
  });

  router.get('/submissions/:id', async (req, res) => {
    res.json(await review.detail(submissionId(req), reviewerOf(res)));
  });

  const mediaLimiter = countFailOpen(
    createRateLimiter(deps.redis, {
      prefix: deps.settings.REDIS_PREFIX,
      limit: deps.settings.MEDIA_RATE_LIMIT_PER_MINUTE,
    }),
    'reviewer_media',
    deps.redisOutage,
  );
  router.get(
    '/submissions/:id/original',
    rateLimitMedia(mediaLimiter, deps.logger, (_req, res) => `reviewer:${reviewerOf(res).reviewerId}`),
    async (req, res) => {
      const media = await review.original(submissionId(req), reviewerOf(res));
      res.setHeader('Cache-Control', 'private, max-age=300');
      await sendMedia(req, res, media);
    },
  );

  router.post('/submissions/:id/claim', async (req, res) => {
    res.json(await review.claim(submissionId(req), reviewerOf(res)));
  });

  router.delete('/submissions/:id/claim', async (req, res) => {
    await review.release(submissionId(req), reviewerOf(res));
    res.status(204).end();
  });

  router.post('/submissions/:id/decision', async (req, res) => {
    const decision = parseDecision(requireJson(req));
    res.json(await review.decide(submissionId(req), decision, reviewerOf(res)));
  });

  router.post('/decisions', async (req, res) => {
    const batch = parseBatchDecision(requireJson(req), (id) => isId('submission', id));
    res.json(await review.decideBatch(batch.ids, batch.decision, reviewerOf(res)));
  });

  router.get('/submissions/:id/notes', async (req, res) => {
    res.json(await review.notes(submissionId(req), reviewerOf(res)));
  });

  router.post('/submissions/:id/notes', async (req, res) => {
    const json = requireJson(req);
    const body = parseInternalNote(json);
    const moments = parseNoteMoments(json);
    res.status(201).json(await review.addNote(submissionId(req), body, reviewerOf(res), moments));
  });

  router.get(
    '/events',
    reviewEventsHandler(
      deps.reviewChanges,
      streamAccess(deps, sessions),
      (req) => readSessionCookie(req, cookieOptions),
      {
        limits: {
          perSession: deps.settings.REVIEW_STREAMS_PER_SESSION,
          perReviewer: deps.settings.REVIEW_STREAMS_PER_REVIEWER,
        },
        metrics: deps.metrics,
        onResync: deps.redisOutage.resynced,
      },
    ),
  );

  router.patch('/submissions/:id', async (req, res) => {
    const visibility = parseVisibility(requireJson(req));
    res.json(await review.setVisibility(submissionId(req), visibility, reviewerOf(res)));
  });

  router.post('/submissions/:id/retry', requireAdmin, async (req, res) => {
    res.status(202).json(await review.retry(submissionId(req), reviewerOf(res), res.locals['requestId'] as string));
  });

  router.get('/audit', requireAdmin, async (req, res) => {
    const { window, format } = await parseAuditQuery(deps.db, req.query as Record<string, unknown>);
    res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
    res.setHeader('Content-Disposition', `attachment; filename="framedesk-audit.${format}"`);
    await exportAudit(deps.db, { window, format }, res);
    res.end();
  });

  router.get('/ops/workers', requireAdmin, opsWorkersHandler(deps));
  router.get('/ops', requireAdmin, async (req, res) => {
    res.json(await review.ops(req.query as Record<string, unknown>, reviewerOf(res)));
  });

  router.use(peopleRoutes({ db: deps.db, invites, passwordLogin: deps.settings.PASSWORD_LOGIN }));
  router.use(teamRoutes({ db: deps.db, limits: deps.settings }));
  router.use(policiesRoutes({ db: deps.db, limits: deps.settings }));

  return router;
}
