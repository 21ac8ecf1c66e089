import { type RequestHandler, Router } from 'express';
import { type RateLimiter, verifyMediaUrl } from '@framedesk/access';
import { DomainError } from '@framedesk/domain';
import type { Logger } from '@framedesk/observability';
import { LAZY_VARIANT, type SubmissionsService } from '@framedesk/submissions';
import { rateLimitMedia, sendMedia } from '../http/media-delivery';
import type { PublicAnswer } from '../http/public-on-request';

/**
 * `/media/<submission>/<name>?expires=…&signature=…`: the variants a GET resource links to.
 * The signature is the authorization (HMAC-SHA256 with SESSION_SECRET), so these URLs work in
 * an <img> tag; they expire, and the GET resource hands out fresh ones. `Range` requests read only
 * their bytes from storage; requests are rate-limited per reviewer (`MEDIA_RATE_LIMIT_PER_MINUTE`;
 * links issued to an agent, without a `viewer`, per client address).
 *
 * `public` is made once a frame is promoted (issue 39): asked for before it exists, it is made on
 * the request or answered 202 with Retry-After (docs/api.md, "Variants"), never 404 while the
 * frame can still be delivered.
 */
export function mediaRoutes(deps: {
  secret: string;
  submissions: SubmissionsService;
  /** Whether a reviewer may see a submission now (links issued to a reviewer carry `viewer`). */
  viewerMaySee: (reviewerId: string, submissionId: string) => Promise<boolean>;
  /** The media routes' limiter, shared with the video originals of `/review`. */
  limiter: RateLimiter;
  logger: Logger;
  /** A `public` not made yet (public-on-request.ts). */
  publicOnRequest?: (submissionId: string) => Promise<PublicAnswer>;
}): Router {
  const router = Router();
  // The signature first: only a valid link's reviewer is counted (a forged `viewer` spends nobody's budget).
  const verify: RequestHandler = (req, res, next) => {
    const query = req.query as Record<string, unknown>;
    const viewer = typeof query['viewer'] === 'string' ? query['viewer'] : undefined;
    const valid = verifyMediaUrl(deps.secret, {
      submissionId: String(req.params['submissionId'] ?? ''),
      name: String(req.params['name'] ?? ''),
      viewer,
      expires: typeof query['expires'] === 'string' ? query['expires'] : undefined,
      signature: typeof query['signature'] === 'string' ? query['signature'] : undefined,
    });
    if (!valid)
      throw new DomainError(
        'forbidden',
        'This media URL is not valid or has expired; GET the submission again for a fresh one.',
      );
    res.locals['mediaViewer'] = viewer;
    next();
  };
  const limit = rateLimitMedia(deps.limiter, deps.logger, (req, res) => {
    const viewer = res.locals['mediaViewer'] as string | undefined;
    return viewer ? `reviewer:${viewer}` : `address:${req.ip ?? 'unknown'}`;
  });
  router.get('/media/:submissionId/:name', verify, limit, async (req, res) => {
    const submissionId = String(req.params['submissionId'] ?? '');
    const name = String(req.params['name'] ?? '');
    const viewer = res.locals['mediaViewer'] as string | undefined;
    // A workbench link: only while its reviewer is enabled and an admin or a member of the channel.
    if (viewer && !(await deps.viewerMaySee(viewer, submissionId)))
      throw new DomainError('not_found', `No media "${name}" for ${submissionId}.`);
    let media = await deps.submissions.deliveredMedia(submissionId, name);
    if (!media && name === LAZY_VARIANT && deps.publicOnRequest) {
      const answer = await deps.publicOnRequest(submissionId);
      if (answer.kind === 'pending') {
        res.status(202);
        res.setHeader('Retry-After', String(answer.retryAfterSeconds));
        res.setHeader('Cache-Control', 'no-store');
        res.json({ status: 'pending', detail: answer.detail, retry_after_seconds: answer.retryAfterSeconds });
        return;
      }
      if (answer.kind === 'ready') media = await deps.submissions.deliveredMedia(submissionId, name);
    }
    if (!media) throw new DomainError('not_found', `No media "${name}" for ${submissionId}.`);
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    await sendMedia(req, res, media);
  });
  return router;
}
