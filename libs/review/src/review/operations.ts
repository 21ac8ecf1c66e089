import { DomainError, FAILURE_CODES, randomToken } from '@framedesk/domain';
import { parseFailedFilter } from '../review-input';
import { failedView } from '../review.views';
import { assertAdmin, notFound, type Reviewer, type ReviewContext } from './context';

/** For admins: the ops page's figures and an operator's retry of a failed frame. */
export function reviewOperations(ctx: ReviewContext) {
  const { db, actorOf, deps } = ctx;
  return {
    /** Queue depths, counts by status, and the latest failed frames (filtered by failure code and channel). */
    async ops(query: Record<string, unknown>, me: Reviewer) {
      assertAdmin(me);
      const filter = parseFailedFilter(query);
      // Figures a moment stale at most: a replica's while one keeps up (docs/operations.md).
      const reads = db.readRepos();
      const [queues, failed, byStatus] = await Promise.all([
        deps.queueDepths(),
        reads.review.recentlyFailed(50, filter),
        reads.submissions.countByStatus(),
      ]);
      return {
        queues,
        submissions_by_status: byStatus,
        recently_failed: failed.map(failedView),
        failure_codes: [...FAILURE_CODES],
      };
    },

    /**
     * Failed processing re-enters the pipeline at its start, through the status machine, then is
     * enqueued anew (the job carries `requestId`, the retrying request's, into the worker's logs).
     */
    async retry(id: string, me: Reviewer, requestId?: string) {
      assertAdmin(me);
      const current = await db.repos.submissions.findById(id);
      if (!current) throw notFound(id);
      if (current.status !== 'failed')
        throw new DomainError(
          'invalid_transition',
          `Only failed frames can be retried; this one is ${current.status}.`,
        );
      if (current.purgedAt) throw purgedError();
      if (current.failureCode === 'upload_expired') {
        throw new DomainError(
          'invalid_transition',
          'Nothing was ever uploaded for this frame; the agent has to submit it again.',
        );
      }
      const to = current.mediaType === 'image' ? 'received' : 'media_processing';
      const result = await db.transition({
        id,
        to,
        actor: actorOf(me),
        reason: 'retry',
        onlyFrom: ['failed'],
        patch: { failureCode: null, failureMessage: null },
        data: { failure_code: current.failureCode, failure_message: current.failureMessage },
      });
      // A purge marks the frame before it deletes anything: a retry racing it loses here.
      if (!result.ok && result.purged) throw purgedError();
      if (!result.ok) throw new DomainError('invalid_transition', 'Someone else retried this frame first.');
      const attempt = `retry-${randomToken(8)}`;
      await deps.queues.enqueue(
        current.mediaType === 'image' ? 'image.process' : 'video.process',
        { submissionId: id },
        { attempt, origin: { requestId } },
      );
      return { id, status: to };
    },
  };
}

const purgedError = () =>
  new DomainError('media_purged', 'Its media were purged (retention or erasure): there is nothing left to process.');
