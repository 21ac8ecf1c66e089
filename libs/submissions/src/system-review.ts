import type { Database, Repositories, TransitionPatch, TransitionRequest } from '@framedesk/db';
import type { SubmissionStatus } from '@framedesk/domain';
import type { PolicyRouting } from '@framedesk/policies';

export type ProcessedOutcome =
  | { readonly ok: true; readonly to: 'needs_review' | 'promoted' | 'rejected' }
  | { readonly ok: false; readonly current: SubmissionStatus | null };

/**
 * What `record` adds to the status change: how the channel's review policy routed the frame
 * (libs/policies `policyRouting`) and fields the status change's own UPDATE writes (the signals a
 * policy read).
 */
export interface RecordedMedia {
  readonly policy?: PolicyRouting | null;
  readonly patch?: TransitionPatch;
}

export interface ProcessedInput {
  readonly id: string;
  readonly requiresReview: boolean;
  readonly reason: string | null;
  readonly patch: TransitionPatch;
  readonly data: Record<string, unknown>;
  readonly now?: Date;
  /**
   * The media's rows, committed in the transaction of the first status change tried, before it
   * (and even when it loses). What it returns decides the change: a policy is decided only once
   * the history is read, inside that transaction.
   */
  readonly record?: (repos: Repositories) => Promise<RecordedMedia | void>;
  /** A routing decided before (a video's: no history to read with its media), when there is no `record`. */
  readonly policy?: PolicyRouting | null;
}

type Move = Omit<TransitionRequest, 'id' | 'actor' | 'onlyFrom'> & { readonly to: ProcessedTo };
type ProcessedTo = 'needs_review' | 'promoted' | 'rejected';

/**
 * The first status change tried: a policy's reject, a promote (a policy's, or `requires_review:
 * false`), else needs_review.
 */
function firstMove(input: ProcessedInput, recorded: RecordedMedia): Move {
  const policy = recorded.policy ?? input.policy ?? null;
  const patch = { ...input.patch, ...recorded.patch, ...policy?.patch };
  const data = { ...input.data, ...policy?.data };
  const decided = (decision: 'promoted' | 'rejected') => ({
    ...patch,
    reviewDecision: decision,
    reviewedAt: input.now ?? new Date(),
  });
  if (policy?.to === 'rejected') return { to: 'rejected', reason: policy.reason, patch: decided('rejected'), data };
  const promote = policy?.to ? policy.to === 'promoted' : !input.requiresReview;
  if (promote)
    return {
      to: 'promoted',
      onlyWithVisibility: 'promotion_eligible',
      reason: policy?.to === 'promoted' ? policy.reason : 'review not required',
      patch: decided('promoted'),
      data,
    };
  return { to: 'needs_review', reason: policy?.reason ?? input.reason, patch, data };
}

/**
 * Media is ready: with `requires_review: false` the system promotes it, recording its decision and
 * time like a reviewer would, but only while it is `promotion_eligible` (part of the
 * compare-and-set, so a concurrent change to draft wins); anything else waits in needs_review.
 * A policy's promote or reject decides as the system, with the rule's name; its review options
 * ride along. One statement per status change tried; with `record`, the first in its transaction.
 */
export async function finishProcessing(db: Database, input: ProcessedInput): Promise<ProcessedOutcome> {
  const base = { id: input.id, actor: { type: 'system' } as const, onlyFrom: ['media_processing'] as const };
  let recorded: RecordedMedia = {};
  const record = input.record;
  const first = await db.transition(
    { ...base, ...firstMove(input, recorded) },
    record
      ? {
          before: async (repos) => {
            recorded = (await record(repos)) ?? {};
            return { ...base, ...firstMove(input, recorded) };
          },
        }
      : undefined,
  );
  const tried = firstMove(input, recorded);
  if (first.ok) return { ok: true, to: tried.to };
  if (tried.to !== 'promoted' || first.current !== 'media_processing') return { ok: false, current: first.current };
  // Not promotion_eligible (the media's rows are committed: this try need not repeat them). A
  // promote rule that could not promote decided nothing: people will.
  const reviewed = await db.transition({
    ...base,
    to: 'needs_review',
    reason: 'not promotion_eligible: left for review',
    patch: { ...input.patch, ...recorded.patch, ...recorded.policy?.patch, reviewRule: null },
    data: tried.data ?? {},
  });
  return reviewed.ok ? { ok: true, to: 'needs_review' } : { ok: false, current: reviewed.current };
}
