import type { SubmissionRow } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import type { Reviewer, ReviewContext } from './context';

/** What a review policy recorded on the frame (libs/policies PolicyOutcome), as far as decisions read it. */
interface RecordedOutcome {
  readonly rule?: string | null;
  readonly sampled?: boolean;
  readonly suggestion?: 'promote' | 'reject';
}

const approvedBy = (row: SubmissionRow): readonly string[] =>
  (row as SubmissionRow & { approvedBy?: string[] }).approvedBy ?? [];

/**
 * Approvals and sampling (docs/policies.md): a frame routed with `approvals: 2` needs two different
 * reviewers' promotes; a reject by either rejects. A sampled frame's decision is recorded as
 * agreeing with what the policy would have done, or not.
 */
export function reviewApprovals(ctx: ReviewContext) {
  return {
    /**
     * Before a promote: 'promote' when this promote completes the approvals, 'approved' when it was
     * recorded and more are needed. The same reviewer's second promote: 409 already_approved.
     */
    async beforePromote(current: SubmissionRow, me: Reviewer): Promise<'promote' | 'approved'> {
      const required = current.approvalsRequired ?? 1;
      if (required <= 1) return 'promote';
      const approvers = new Set(approvedBy(current));
      if (approvers.has(me.reviewerId) && approvers.size < required)
        throw new DomainError(
          'already_approved',
          `You have already approved this frame; it needs ${required} different reviewers (${approvers.size} of ${required}).`,
        );
      approvers.add(me.reviewerId);
      if (approvers.size >= required) return 'promote';
      const recorded = await ctx.db.repos.policies.approve(current.id, me.reviewerId);
      if (recorded) return 'approved';
      // It changed meanwhile (decided, or another approval came first): read again and decide on that.
      const fresh = await ctx.visible(current.id, me);
      if (fresh.status !== 'needs_review') return 'promote';
      return this.beforePromote(fresh, me);
    },

    /**
     * The decision's event data on a frame the policy marked with a suggestion; {} otherwise. Only
     * a sample (`sampled`) is judged for agreement: a frame held back for people (the scoring
     * service did not answer) carries the rule's suggestion, but it is no sample. `judge` counts
     * the judgement (the samples metric): call it once the decision's transition succeeded.
     */
    agreement(
      current: SubmissionRow,
      to: 'promoted' | 'rejected',
    ): { data: Record<string, unknown>; judge: () => void } {
      const outcome = (current.policyOutcome ?? null) as RecordedOutcome | null;
      if (!outcome?.suggestion) return { data: {}, judge: () => {} };
      const rule = outcome.rule ? { rule: outcome.rule } : {};
      if (outcome.sampled !== true)
        return { data: { policy_suggestion: outcome.suggestion, ...rule }, judge: () => {} };
      const agrees = (outcome.suggestion === 'promote') === (to === 'promoted');
      return {
        data: { policy_suggestion: outcome.suggestion, agrees_with_policy: agrees, ...rule },
        judge: () => {
          if (outcome.rule) ctx.deps.decisions?.judged?.(outcome.rule, agrees);
        },
      };
    },
  };
}
