import type { PolicyOutcome } from './evaluate';

/** How the pipeline's last step moves a frame a policy routed (libs/submissions finishProcessing). */
export interface PolicyRouting {
  /** promoted: only while promotion_eligible, else needs_review; null: as without a policy. */
  readonly to: 'promoted' | 'rejected' | 'needs_review' | null;
  /** The transition's reason: the rule's reason, else what the rule did. */
  readonly reason: string | null;
  readonly patch: {
    readonly reviewRule?: string | null;
    readonly reviewReason?: string | null;
    readonly reviewPriority?: number;
    readonly dueAt?: Date | null;
    readonly approvalsRequired?: number;
    readonly policyOutcome: Record<string, unknown>;
  };
  /** The event's data: the rule's name for an automatic decision. */
  readonly data: { readonly rule?: string };
}

/** Pure: a policy's outcome as the transition's fields. null when there is no policy. */
export function policyRouting(outcome: PolicyOutcome | null, now: Date): PolicyRouting | null {
  if (!outcome) return null;
  const policyOutcome = { ...outcome } as Record<string, unknown>;
  if (outcome.action === 'promote' || outcome.action === 'reject') {
    const rule = outcome.rule ?? undefined;
    return {
      to: outcome.action === 'promote' ? 'promoted' : 'rejected',
      reason: outcome.reason ?? `policy rule ${outcome.rule}`,
      patch: {
        reviewRule: outcome.rule,
        ...(outcome.action === 'reject' ? { reviewReason: outcome.reason ?? null } : {}),
        policyOutcome,
      },
      data: rule ? { rule } : {},
    };
  }
  if (outcome.action === 'review') {
    return {
      to: 'needs_review',
      reason: outcome.rule ? `policy rule ${outcome.rule}: review` : 'policy: review',
      patch: {
        ...(outcome.priority !== undefined ? { reviewPriority: outcome.priority } : {}),
        ...(outcome.dueInMs !== undefined ? { dueAt: new Date(now.getTime() + outcome.dueInMs) } : {}),
        ...(outcome.approvals !== undefined ? { approvalsRequired: outcome.approvals } : {}),
        policyOutcome,
      },
      data: {},
    };
  }
  return { to: null, reason: null, patch: { policyOutcome }, data: {} };
}
