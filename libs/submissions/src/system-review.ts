import type { Database, TransitionOptions, TransitionPatch } from '@framedesk/db';
import type { SubmissionStatus } from '@framedesk/domain';

export type ProcessedOutcome =
  | { readonly ok: true; readonly to: 'needs_review' | 'promoted' }
  | { readonly ok: false; readonly current: SubmissionStatus | null };

/**
 * Media is ready: with `requires_review: false` the system promotes it, recording its decision and
 * time like a reviewer would, but only while it is `promotion_eligible` (part of the
 * compare-and-set, so a concurrent change to draft wins); anything else waits in needs_review.
 * `before` (the media's rows) commits in the transaction of the first status change tried.
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
  },
): Promise<ProcessedOutcome> {
  let options: TransitionOptions | undefined = input.before ? { before: input.before } : undefined;
  const base = { id: input.id, actor: { type: 'system' } as const, onlyFrom: ['media_processing'] as const };
  if (!input.requiresReview) {
    const promoted = await db.transition(
      {
        ...base,
        to: 'promoted',
        onlyWithVisibility: 'promotion_eligible',
        reason: 'review not required',
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
      reason: input.requiresReview ? input.reason : 'not promotion_eligible: left for review',
      patch: input.patch,
      data: input.data,
    },
    options,
  );
  return reviewed.ok ? { ok: true, to: 'needs_review' } : { ok: false, current: reviewed.current };
}
