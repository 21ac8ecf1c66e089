// The reviewer's rules, one concern per file in ./review: reads (queue, detail, timeline), claims,
// decisions, visibility, and the admins' operations. `reviewService` puts them together behind the
// one surface the API and the demo use.
import { DomainError } from '@framedesk/domain';
import type { Decision } from './review-input';
import { type Reviewer, reviewContext, type ReviewServiceDeps } from './review/context';
import { reviewClaims } from './review/claims';
import { reviewDecisions } from './review/decisions';
import { reviewNotes } from './review/feedback';
import { reviewOperations } from './review/operations';
import { reviewReads } from './review/reads';

export {
  assertAdmin,
  type ByteRange,
  type ObjectReader,
  type QueueDepth,
  type RetryEnqueuer,
  type Reviewer,
  type ReviewServiceDeps,
  scopeOf,
} from './review/context';
export type { BatchResult } from './review/decisions';

/** The reviewer's rules: queue, claims, decisions, visibility, timeline, ops and retries. */
export function reviewService(deps: ReviewServiceDeps) {
  const ctx = reviewContext(deps);
  const reads = reviewReads(ctx);
  const { decideOne, decideBatch } = reviewDecisions(ctx);
  return {
    queue: reads.queue,
    stats: reads.stats,
    channels: reads.channels,
    detail: reads.detail,
    original: reads.original,
    timeline: reads.timeline,
    ...reviewClaims(ctx),
    ...reviewOperations(ctx),
    ...reviewNotes(ctx),
    decideBatch,

    /** Promote or reject through the status machine; the loser of a race gets a plain 409. */
    async decide(id: string, decision: Decision, me: Reviewer) {
      await decideOne(id, decision, me);
      return reads.detail(id, me);
    },

    async setVisibility(id: string, visibility: 'draft' | 'team_visible' | 'promotion_eligible', me: Reviewer) {
      const current = await ctx.visible(id, me);
      if (current.visibility !== visibility) {
        const updated = await ctx.db.transaction((repos) =>
          repos.submissions.update(
            id,
            { visibility },
            {
              type: 'visibility_changed',
              actor: ctx.actorOf(me),
              data: { from: current.visibility, to: visibility },
            },
            { status: { notIn: ['promoted', 'rejected'] }, visibility: current.visibility },
          ),
        );
        if (!updated)
          throw new DomainError('invalid_transition', 'This frame was decided or changed meanwhile; reload it.');
        await deps.changes?.publish({ kind: 'visibility', id, channel: current.channelId });
      }
      return reads.detail(id, me);
    },
  };
}

export type ReviewService = ReturnType<typeof reviewService>;
