// What a decision teaches its agent (note and regions, written in the decision's compare-and-set
// and in its event), and the reviewers' internal notes on a frame (never shown to an agent).
import type { ReviewInternalNote } from '@framedesk/contracts';
import type { Database, ReviewMoment, ReviewNoteRow, TransitionPatch } from '@framedesk/db';
import { assertReasonAllowed } from '../channel-reasons';
import { assertMomentsWithin } from '../moment-input';
import type { Decision } from '../review-input';
import { type Reviewer, type ReviewContext } from './context';

/**
 * The columns and event data of a decision's feedback. A rejection stores its note and regions; a
 * promotion clears them (a frame decided once has no earlier feedback to keep).
 */
export function decisionFeedback(decision: Decision): {
  patch: Pick<TransitionPatch, 'reviewNote' | 'reviewRegions' | 'reviewMoments'>;
  data: Record<string, unknown>;
} {
  if (decision.decision !== 'reject')
    return { patch: { reviewNote: null, reviewRegions: null, reviewMoments: null }, data: {} };
  const moments = decision.moments && decision.moments.length > 0 ? decision.moments : null;
  return {
    patch: {
      reviewNote: decision.note,
      reviewRegions: decision.regions.length > 0 ? decision.regions : null,
      reviewMoments: moments,
    },
    data: {
      ...(decision.note ? { note: decision.note } : {}),
      ...(decision.regions.length > 0 ? { regions: decision.regions } : {}),
      ...(moments ? { moments } : {}),
    },
  };
}

/**
 * A rejection's reason must be on its channel's list (422 naming the allowed ones), and its
 * time-coded items within the video (422 naming the item).
 */
export async function assertFeedbackAllowed(
  db: Database,
  frame: { readonly channelId: string; readonly mediaType: string; readonly durationMs: number | null },
  decision: Decision,
): Promise<void> {
  if (decision.decision !== 'reject') return;
  assertMomentsWithin(decision.moments ?? [], frame);
  await assertReasonAllowed(db, frame.channelId, decision.reason);
}

export function internalNoteView(n: ReviewNoteRow): ReviewInternalNote {
  return {
    id: n.id,
    author_email: n.reviewerEmail,
    body: n.body,
    moments: [...n.moments],
    created_at: n.createdAt.toISOString(),
  };
}

/** Internal notes: any reviewer who may see the frame reads and adds them. */
export function reviewNotes(ctx: ReviewContext) {
  const repo = ctx.db.repos.feedback;
  return {
    async notes(id: string, me: Reviewer): Promise<{ notes: ReviewInternalNote[] }> {
      await ctx.visible(id, me);
      return { notes: (await repo.notes(id)).map(internalNoteView) };
    },
    async addNote(
      id: string,
      body: string,
      me: Reviewer,
      moments: readonly ReviewMoment[] = [],
    ): Promise<ReviewInternalNote> {
      assertMomentsWithin(moments, await ctx.visible(id, me));
      return internalNoteView(await repo.addNote({ submissionId: id, reviewerId: me.reviewerId, body, moments }));
    },
  };
}
