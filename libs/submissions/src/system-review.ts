import type { Database, TransitionOptions, TransitionPatch } from '@framedesk/db';
import type { SubmissionStatus } from '@framedesk/domain';
import type { PolicyRouting } from '@framedesk/policies';

export type ProcessedOutcome =
  | { readonly ok: true; readonly to: 'needs_review' | 'promoted' | 'rejected' }
  | { readonly ok: false; readonly current: SubmissionStatus | null };

/**
 * Media is ready: with `requires_review: false` the system promotes it, recording its decision and
 * time like a reviewer would, but only while it is `promotion_eligible` (part of the
 * compare-and-set, so a concurrent change to draft wins); anything else waits in needs_review.
 * `before` (the media's rows) commits in the transaction of the first status change tried.
 * `policy`: how the channel's review policy routed it (libs/policies `policyRouting`): a rule's
 * promote or reject decides as the system, with the rule's name; its review options ride along.
 */
export async function finishProcessing(
  db: Database,
  input: {
    id: string;
    requiresReview: boolean;
    reason: string | null;
    patch: TransitionPatch;
    data: Record<string, unknown>;
    now?: Date;
    before?: TransitionOptions['before'];
    policy?: PolicyRouting | null;
  },
): Promise<ProcessedOutcome> {
  let options: TransitionOptions | undefined = input.before ? { before: input.before } : undefined;
  const base = { id: input.id, actor: { type: 'system' } as const, onlyFrom: ['media_processing'] as const };
  const policy = input.policy ?? null;
  if (policy) input = { ...input, patch: { ...input.patch, ...policy.patch }, data: { ...input.data, ...policy.data } };
  if (policy?.to === 'rejected') {
    const rejected = await db.transition(
      {
        ...base,
        to: 'rejected',
        reason: policy.reason,
        patch: { ...input.patch, reviewDecision: 'rejected', reviewedAt: input.now ?? new Date() },
        data: input.data,
      },
      options,
    );
    return rejected.ok ? { ok: true, to: 'rejected' } : { ok: false, current: rejected.current };
  }
  const promote = policy?.to ? policy.to === 'promoted' : !input.requiresReview;
  if (promote) {
    const promoted = await db.transition(
      {
        ...base,
        to: 'promoted',
        onlyWithVisibility: 'promotion_eligible',
        reason: policy?.to === 'promoted' ? policy.reason : 'review not required',
        patch: { ...input.patch, reviewDecision: 'promoted', reviewedAt: input.now ?? new Date() },
        data: input.data,
      },
      options,
    );
    // The media's rows are committed, whatever the outcome: the next try need not repeat them.
    options = undefined;
    if (promoted.ok) return { ok: true, to: 'promoted' };
    if (promoted.current !== 'media_processing') return { ok: false, current: promoted.current };
  }
  const reviewed = await db.transition(
    {
      ...base,
      to: 'needs_review',
      reason: !promote ? (policy?.reason ?? input.reason) : 'not promotion_eligible: left for review',
      // A promote rule that could not promote decided nothing: people will.
      patch: promote ? { ...input.patch, reviewRule: null } : input.patch,
      data: input.data,
    },
    options,
  );
  return reviewed.ok ? { ok: true, to: 'needs_review' } : { ok: false, current: reviewed.current };
}
