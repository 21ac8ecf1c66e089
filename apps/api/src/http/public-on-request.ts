import type { Semaphore } from '@framedesk/access';
import type { Logger } from '@framedesk/observability';
import type { QueueProducer } from '@framedesk/queues';
import type { PublicVariantService } from '@framedesk/submissions';

/** What a request for a `public` that does not exist yet is answered with. */
export type PublicAnswer =
  /** Made on this request: serve it. */
  | { readonly kind: 'ready' }
  /** Not yet: 202 with Retry-After (a frame in review, or the API busy making others). */
  | { readonly kind: 'pending'; readonly retryAfterSeconds: number; readonly detail: string }
  /** Never made: rejected, failed, purged, or not an image. */
  | { readonly kind: 'never' };

/** A frame in review gets its `public` when promoted: asked again after this. */
export const IN_REVIEW_RETRY_SECONDS = 30;
/** The job was enqueued (the API's makers were busy, or making failed): asked again after this. */
export const QUEUED_RETRY_SECONDS = 2;

/**
 * The first request for a promoted frame's `public` before its `image.publish` job ran: made in
 * this request when one of the process's makers is free (`semaphore`: CPU for requests is not
 * spent without bound), else the job is made sure of and the answer is 202 with Retry-After.
 */
export function publicOnRequest(deps: {
  readonly publicVariant: PublicVariantService;
  readonly queues: Pick<QueueProducer, 'enqueue'>;
  readonly semaphore: Semaphore;
  readonly logger: Logger;
}): (submissionId: string) => Promise<PublicAnswer> {
  const queued = async (submissionId: string): Promise<PublicAnswer> => {
    await deps.queues
      .enqueue('image.publish', { submissionId })
      .catch((error: unknown) => deps.logger.warn({ err: error, submission_id: submissionId }, 'enqueue failed'));
    return {
      kind: 'pending',
      retryAfterSeconds: QUEUED_RETRY_SECONDS,
      detail: 'The public variant of this promoted frame is being made; request it again after Retry-After.',
    };
  };
  return async (submissionId) => {
    const availability = await deps.publicVariant.availability(submissionId);
    if (availability === 'never') return { kind: 'never' };
    if (availability === 'later')
      return {
        kind: 'pending',
        retryAfterSeconds: IN_REVIEW_RETRY_SECONDS,
        detail: 'The public variant is made when the frame is promoted; request it again after Retry-After.',
      };
    const release = await deps.semaphore.tryAcquire();
    if (!release) return queued(submissionId);
    try {
      const made = await deps.publicVariant.make(submissionId);
      return made.outcome === 'skipped' ? { kind: 'never' } : { kind: 'ready' };
    } catch (error) {
      deps.logger.warn({ err: error, submission_id: submissionId }, 'making the public variant on request failed');
      return queued(submissionId);
    } finally {
      release();
    }
  };
}
