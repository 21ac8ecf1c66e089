// What a decision teaches its agent (note and regions, written in the decision's compare-and-set
// and in its event), and the reviewers' internal notes on a frame (never shown to an agent).
import type { ReviewInternalNote } from '@framedesk/contracts';
import type { Database, ReviewNoteRow, TransitionPatch } from '@framedesk/db';
import { assertReasonAllowed } from '../channel-reasons';
import type { Decision } from '../review-input';
import { type Reviewer, type ReviewContext } from './context';

/**
 * The columns and event data of a decision's feedback. A rejection stores its note and regions; a
 * promotion clears them (a frame decided once has no earlier feedback to keep).
 */
export function decisionFeedback(decision: Decision): {
  patch: Pick<TransitionPatch, 'reviewNote' | 'reviewRegions'>;
  data: Record<string, unknown>;
} {
  if (decision.decision !== 'reject') return { patch: { reviewNote: null, reviewRegions: null }, data: {} };
  return {
    patch: { reviewNote: decision.note, reviewRegions: decision.regions.length > 0 ? decision.regions : null },
    data: {
      ...(decision.note ? { note: decision.note } : {}),
      ...(decision.regions.length > 0 ? { regions: decision.regions } : {}),
    },
  };
}

/** A rejection's reason must be on its channel's list (422 naming the allowed ones). */
export async function assertFeedbackAllowed(db: Database, channelId: string, decision: Decision): Promise<void> {
  if (decision.decision === 'reject') await assertReasonAllowed(db, channelId, decision.reason);
}

export function internalNoteView(n: ReviewNoteRow): ReviewInternalNote {
  return { id: n.id, author_email: n.reviewerEmail, body: n.body, created_at: n.createdAt.toISOString() };
}

/** Internal notes: any reviewer who may see the frame reads and adds them. */
export function reviewNotes(ctx: ReviewContext) {
  const repo = ctx.db.repos.feedback;
  return {
    async notes(id: string, me: Reviewer): Promise<{ notes: ReviewInternalNote[] }> {
      await ctx.visible(id, me);
      return { notes: (await repo.notes(id)).map(internalNoteView) };
    },
    async addNote(id: string, body: string, me: Reviewer): Promise<ReviewInternalNote> {
      await ctx.visible(id, me);
      return internalNoteView(await repo.addNote({ submissionId: id, reviewerId: me.reviewerId, body }));
    },
  };
}
