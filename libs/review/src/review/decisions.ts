import { DomainError } from '@framedesk/domain';
import type { ReviewBatchResult } from '@framedesk/contracts';
import type { SubmissionRow } from '@framedesk/db';
import { annotateSpan, withLinkedSpan } from '@framedesk/observability';
import type { Decision } from '../review-input';
import { reviewApprovals } from './approvals';
import { notFound, type Reviewer, type ReviewContext, scopeOf } from './context';
import { assertFeedbackAllowed, decisionFeedback } from './feedback';

/** One frame's answer in a batch decision. */
export type BatchResult = ReviewBatchResult;

/** Decisions: promote or reject through the status machine, one frame or a batch. */
export function reviewDecisions(ctx: ReviewContext) {
  const { db, now, visible, similarity, actorOf, deps } = ctx;
  const approvals = reviewApprovals(ctx);

  /**
   * A decision is its own trace (the reviewer's request), linked to the trace of the frame it
   * decides when the worker recorded one.
   */
  async function decideOne(
    id: string,
    decision: Decision,
    me: Reviewer,
  ): Promise<'promoted' | 'rejected' | 'approved'> {
    const current = await visible(id, me);
    const to = await withLinkedSpan(
      'review.decision',
      [current.traceParent ? { traceparent: current.traceParent } : undefined],
      {
        'framedesk.submission_id': id,
        'framedesk.media_type': current.mediaType,
        'framedesk.decision': decision.decision,
      },
      async () => {
        const outcome = await decideCurrent(current, decision, me);
        annotateSpan({ 'framedesk.outcome': outcome });
        return outcome;
      },
    );
    if (to !== 'approved') deps.decisions?.decided(to);
    return to;
  }

  async function decideCurrent(
    current: SubmissionRow,
    decision: Decision,
    me: Reviewer,
  ): Promise<'promoted' | 'rejected' | 'approved'> {
    const at = now();
    const id = current.id;
    if (current.status !== 'needs_review') throw alreadyDecided(current.status);
    if (current.claimedBy && current.claimedBy !== me.reviewerId && current.claimedUntil && current.claimedUntil > at) {
      throw new DomainError('claimed_by_other', 'Another reviewer is reviewing this frame right now.');
    }
    if (decision.decision === 'promote' && current.visibility !== 'promotion_eligible') {
      throw new DomainError(
        'not_promotion_eligible',
        `This frame's visibility is ${current.visibility}; only promotion_eligible frames can be promoted.`,
      );
    }
    await assertFeedbackAllowed(db, current, decision);
    const reason = decision.decision === 'reject' ? decision.reason : null;
    const feedback = decisionFeedback(decision);
    const duplicateOf = decision.decision === 'reject' ? decision.duplicateOf : undefined;
    if (duplicateOf) await similarity.assertEarlierFrame(id, duplicateOf, scopeOf(me));
    const to = decision.decision === 'promote' ? 'promoted' : 'rejected';
    // Approvals and sampling (review/approvals.ts): a promote may only count as one approval.
    if (to === 'promoted' && (await approvals.beforePromote(current, me)) === 'approved') return 'approved';
    const agreement = approvals.agreement(current, to);
    const data = { ...(duplicateOf ? { duplicate_of: duplicateOf } : {}), ...agreement.data };
    const result = await db.transition({
      id,
      to,
      actor: actorOf(me),
      reason,
      onlyFrom: ['needs_review'],
      ...eventData({ ...feedback.data, ...data }),
      // A concurrent change to draft between the check above and this write wins.
      ...(to === 'promoted' ? { onlyWithVisibility: 'promotion_eligible' as const } : {}),
      patch: {
        reviewDecision: to,
        reviewReason: reason,
        reviewerId: me.reviewerId,
        reviewedAt: at,
        claimedBy: null,
        claimedUntil: null,
        ...feedback.patch,
      },
    });
    if (!result.ok) {
      if (result.current === null) throw notFound(id);
      if (result.current === 'needs_review' && to === 'promoted')
        throw new DomainError(
          'not_promotion_eligible',
          'The visibility changed; only promotion_eligible frames can be promoted.',
        );
      throw alreadyDecided(result.current);
    }
    // Counted only once the decision holds: a 409 (another reviewer first) is no judgement.
    agreement.judge();
    return to;
  }

  return {
    decideOne,

    /**
     * One decision for several frames, each on its own (claim check and compare-and-set), in order;
     * the answer says per frame whether it was decided or why not.
     */
    async decideBatch(ids: readonly string[], decision: Decision, me: Reviewer): Promise<{ results: BatchResult[] }> {
      const results: BatchResult[] = [];
      for (const id of ids) {
        try {
          results.push({ id, outcome: await decideOne(id, decision, me) });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          results.push({ id, outcome: 'failed', code: error.code, detail: error.message });
        }
      }
      return { results };
    },
  };
}

const eventData = (data: Record<string, unknown>) => (Object.keys(data).length > 0 ? { data } : {});

function alreadyDecided(status: string): DomainError {
  if (status === 'promoted' || status === 'rejected') {
    return new DomainError('invalid_transition', `Another reviewer decided this frame first: it is already ${status}.`);
  }
  return new DomainError('invalid_transition', `This frame is ${status.replace('_', ' ')}, not waiting for review.`);
}
