import { Router } from 'express';
import { verifyMediaUrl } from '@framedesk/access';
import { DomainError } from '@framedesk/domain';
import { LAZY_VARIANT, type SubmissionsService } from '@framedesk/submissions';
import type { PublicAnswer } from '../http/public-on-request';

/**
 * `/media/<submission>/<name>?expires=…&signature=…`: the variants a GET resource links to.
 * The signature is the authorization (HMAC-SHA256 with SESSION_SECRET), so these URLs work in
 * an <img> tag; they expire, and the GET resource hands out fresh ones.
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
  /** A `public` not made yet (public-on-request.ts). */
  publicOnRequest?: (submissionId: string) => Promise<PublicAnswer>;
}): Router {
  const router = Router();
  router.get('/media/:submissionId/:name', async (req, res) => {
    const submissionId = req.params['submissionId'] ?? '';
    const name = req.params['name'] ?? '';
    const query = req.query as Record<string, unknown>;
    const viewer = typeof query['viewer'] === 'string' ? query['viewer'] : undefined;
    const valid = verifyMediaUrl(deps.secret, {
      submissionId,
      name,
      viewer,
      expires: typeof query['expires'] === 'string' ? query['expires'] : undefined,
      signature: typeof query['signature'] === 'string' ? query['signature'] : undefined,
    });
    if (!valid)
      throw new DomainError(
        'forbidden',
        'This media URL is not valid or has expired; GET the submission again for a fresh one.',
      );
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
    const stream = await media.open();
    res.setHeader('Content-Type', media.contentType);
    res.setHeader('Content-Length', String(media.byteSize));
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
  return router;
}
