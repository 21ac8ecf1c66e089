import { Transform } from 'node:stream';
import express, { type Request, Router } from 'express';
import { reviewerSessionsService, signMediaUrl } from '@framedesk/access';
import { DomainError, isId } from '@framedesk/domain';
import {
  type MediaUrlFn,
  parseBatchDecision,
  parseDecision,
  parseVisibility,
  type QueueDepth,
  REJECT_REASONS,
  reviewService,
} from '@framedesk/review';
import { reviewChangePublisher, reviewChangeSubscriber } from '@framedesk/queues';
import { nearDuplicateSettings } from '@framedesk/submissions';
import type { ApiDependencies } from '../dependencies';
import {
  clearSessionCookie,
  readSessionCookie,
  requireReviewer,
  reviewerOf,
  setSessionCookie,
} from '../http/reviewer-session';
import { opsWorkersHandler } from './ops-workers.routes';
import { reviewEventsHandler } from './review-events';

export interface ReviewRoutesOptions {
  /** Depth of each job queue (the ops page); defaults to asking the queue producer. */
  readonly queueDepths?: () => Promise<Record<string, QueueDepth>>;
  /** URL of a stored media object for the browser. */
  readonly mediaUrl?: MediaUrlFn;
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

/** Signed media URLs that stay the same for an hour, so polling does not reload every image. */
function signedMediaUrl(secret: string): MediaUrlFn {
  return (submissionId, name) => {
    const expiresAt = new Date((Math.ceil(Date.now() / HOUR_MS) + 1) * HOUR_MS);
    return signMediaUrl(secret, { submissionId, name }, expiresAt);
  };
}

/** One `bytes=start-end` range (what video players ask for); anything else gets the whole body. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '') || size === 0) return null;
  const start = match[1] === '' ? Math.max(0, size - Number(match[2])) : Number(match[1]);
  const end = match[1] === '' || match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start <= end && start < size ? { start, end } : null;
}

/** Passes through only bytes start..end (inclusive) of the stream. */
function byteSlice(start: number, end: number): Transform {
  let offset = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const from = Math.max(0, start - offset);
      const to = Math.min(chunk.length, end - offset + 1);
      offset += chunk.length;
      done(null, from < to ? chunk.subarray(from, to) : undefined);
    },
  });
}

function submissionId(req: Request): string {
  const id = String(req.params['id']);
  if (!isId('submission', id)) throw new DomainError('not_found', `No submission ${id}.`);
  return id;
}

function requireJson(req: Request): Record<string, unknown> {
  if (!req.is('application/json'))
    throw new DomainError('unsupported_media_type', 'Send a JSON body (Content-Type: application/json).');
  return (req.body ?? {}) as Record<string, unknown>;
}

/** `/review/*`: the workbench's API. Cookie sessions only; parse, authorize, delegate. */
export function reviewRoutes(deps: ApiDependencies, options: ReviewRoutesOptions = {}): Router {
  const sessions = reviewerSessionsService(deps.db, deps.redis, {
    ttlHours: deps.settings.SESSION_TTL_HOURS,
    attemptsPer15Minutes: deps.settings.LOGIN_ATTEMPTS_PER_15_MINUTES,
    concurrentPasswordChecks: deps.settings.LOGIN_CONCURRENT_CHECKS,
    keyPrefix: deps.settings.REDIS_PREFIX,
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
  const changes = reviewChangeSubscriber(deps.redis, deps.settings.REDIS_PREFIX);
  const cookieOptions = { trustProxy: deps.settings.TRUST_PROXY !== false };
  const router = Router();

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(express.json({ limit: '16kb' }));

  router.post('/session', async (req, res) => {
    const body = requireJson(req);
    const email = typeof body['email'] === 'string' ? body['email'] : '';
    const password = typeof body['password'] === 'string' ? body['password'] : '';
    if (!email || !password || password.length > 1024)
      throw new DomainError('validation_failed', 'Send an email and a password.');
    const previousToken = readSessionCookie(req, cookieOptions);
    const { token, principal } = await sessions.login({
      email,
      password,
      ip: req.ip ?? 'unknown',
      ...(previousToken ? { previousToken } : {}),
    });
    setSessionCookie(req, res, token, principal.expiresAt, cookieOptions);
    res.status(201).json({
      reviewer: { id: principal.reviewerId, email: principal.email, name: principal.name },
      csrf_token: principal.csrfToken,
      expires_at: principal.expiresAt.toISOString(),
    });
  });

  router.use(requireReviewer(sessions, cookieOptions));

  router.get('/session', (_req, res) => {
    const me = reviewerOf(res);
    res.json({
      reviewer: { id: me.reviewerId, email: me.email, name: me.name },
      csrf_token: me.csrfToken,
      expires_at: me.expiresAt.toISOString(),
      reject_reasons: REJECT_REASONS,
    });
  });

  router.delete('/session', async (req, res) => {
    await sessions.logout(reviewerOf(res));
    clearSessionCookie(req, res, cookieOptions);
    res.status(204).end();
  });

  router.get('/queue', async (req, res) => {
    res.json(await review.queue(req.query as Record<string, unknown>, reviewerOf(res)));
  });

  router.get('/channels', async (_req, res) => {
    res.json(await review.channels());
  });

  router.get('/channels/:slug/timeline', async (req, res) => {
    res.json(await review.timeline(String(req.params['slug']), req.query as Record<string, unknown>));
  });

  router.get('/submissions/:id', async (req, res) => {
    res.json(await review.detail(submissionId(req), reviewerOf(res)));
  });

  router.get('/submissions/:id/original', async (req, res) => {
    const media = await review.original(submissionId(req));
    const range = parseRange(req.get('range'), media.byteSize);
    res.setHeader('Content-Type', media.contentType);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Cache-Control', 'private, max-age=300');
    const stream = await media.open();
    stream.on('error', () => res.destroy());
    if (!range) {
      res.setHeader('Content-Length', String(media.byteSize));
      stream.pipe(res);
      return;
    }
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${media.byteSize}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
    stream.pipe(byteSlice(range.start, range.end)).pipe(res);
  });

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

  router.get('/events', reviewEventsHandler(changes));

  router.patch('/submissions/:id', async (req, res) => {
    const visibility = parseVisibility(requireJson(req));
    res.json(await review.setVisibility(submissionId(req), visibility, reviewerOf(res)));
  });

  router.post('/submissions/:id/retry', async (req, res) => {
    res.status(202).json(await review.retry(submissionId(req), reviewerOf(res), res.locals['requestId'] as string));
  });

  router.get('/ops/workers', opsWorkersHandler(deps));
  router.get('/ops', async (req, res) => {
    res.json(await review.ops(req.query as Record<string, unknown>));
  });

  return router;
}
