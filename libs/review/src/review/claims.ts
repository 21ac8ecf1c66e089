import { DomainError } from '@framedesk/domain';
import { claimView } from '../review.views';
import { notFound, type Reviewer, type ReviewContext } from './context';

/** Claims: a reviewer marks a frame as theirs for a few minutes, so two people do not review it at once. */
export function reviewClaims(ctx: ReviewContext) {
  const { repo, now, visible, deps } = ctx;
  return {
    /** Marks the frame as being reviewed by `me` for a few minutes; another live claim → 409. */
    async claim(id: string, me: Reviewer) {
      const { channelId } = await visible(id, me);
      const at = now();
      const result = await repo.claim({
        id,
        reviewerId: me.reviewerId,
        until: new Date(at.getTime() + ctx.claimMs),
        now: at,
      });
      if (result.ok) {
        await deps.changes?.publish({ kind: 'claim', id, channel: channelId });
        return {
          claim: {
            reviewer_id: me.reviewerId,
            reviewer_email: me.email,
            until: result.claimedUntil.toISOString(),
            mine: true,
          },
        };
      }
      if (result.status === null) throw notFound(id);
      if (result.status !== 'needs_review') {
        throw new DomainError(
          'invalid_transition',
          `This frame is already ${result.status.replace('_', ' ')}; there is nothing left to review.`,
        );
      }
      const emails = await repo.reviewerEmails(result.claimedBy ? [result.claimedBy] : []);
      const holder = claimView(result, me.reviewerId, emails, at);
      throw new DomainError(
        'claimed_by_other',
        `${holder?.reviewer_email ?? 'Another reviewer'} is reviewing this frame until ${holder?.until ?? 'shortly'}.`,
      );
    },

    async release(id: string, me: Reviewer) {
      const { channelId } = await visible(id, me);
      await repo.release({ id, reviewerId: me.reviewerId });
      await deps.changes?.publish({ kind: 'claim', id, channel: channelId });
    },
  };
}
