// `metadata.revision_of`: a frame that replaces an earlier one of the same agent and channel, once
// that one was decided. Checked inside the create's transaction, so a refusal stores nothing.
import type { Repositories } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';

/** Revisions of one frame (its breadth); the stack's depth is bounded where it is read. */
export const REVISIONS_PER_FRAME_MAX = 10;

const refuse = (detail: string) =>
  new DomainError('invalid_revision', detail, { errors: [{ pointer: '/metadata/revision_of', detail }] });

/**
 * The earlier frame's id when `revisionOf` names a frame of `agentId`'s own (another agent's reads
 * as missing: existence never leaks), in `channelId`, already `rejected` or `promoted`, with fewer
 * than REVISIONS_PER_FRAME_MAX revisions (counted under its row lock: 422 revision_limit_reached).
 */
export async function checkRevisionOf(
  repos: Repositories,
  revisionOf: string | undefined,
  agentId: string,
  channelId: string,
): Promise<string | null> {
  if (!revisionOf) return null;
  const earlier = await repos.submissions.findForAgent(revisionOf, agentId);
  if (!earlier) throw refuse(`revision_of must name a frame of your own: there is no submission ${revisionOf}.`);
  if (earlier.channelId !== channelId)
    throw refuse(`revision_of must name a frame in the same channel: ${revisionOf} is in ${earlier.channel.slug}.`);
  if (earlier.status !== 'rejected' && earlier.status !== 'promoted')
    throw refuse(`revision_of must name a frame already rejected or promoted: ${revisionOf} is ${earlier.status}.`);
  if ((await repos.feedback.lockedRevisionCount(earlier.id, REVISIONS_PER_FRAME_MAX)) >= REVISIONS_PER_FRAME_MAX) {
    const detail = `${revisionOf} already has ${REVISIONS_PER_FRAME_MAX} revisions, as many as a frame may have: send this one as a revision of the latest of them.`;
    throw new DomainError('revision_limit_reached', detail, { errors: [{ pointer: '/metadata/revision_of', detail }] });
  }
  return earlier.id;
}
