// Frames written straight into a CLI spec's database, in any status, as the API and the worker
// would have left them (no media objects): what the CLI's commands then read.
import type { Database } from '@framedesk/db';
import { newId, type SubmissionStatus } from '@framedesk/domain';
import { seedActorType, STATUS_PATHS } from '@framedesk/testing';

/**
 * A frame of `agent` in `channel` (both created when missing) moved to `status`; a frame
 * `waiting_for_upload` is a video. Decisions are a reviewer's, every other step the system's.
 */
export async function seedFrame(
  db: Database,
  input: { agent: string; channel: string; status: SubmissionStatus; metadata?: Record<string, unknown> },
): Promise<string> {
  const id = newId('submission');
  const video = input.status === 'waiting_for_upload';
  await db.transaction(async (repos) => {
    const agent = (await repos.agents.findBySlug(input.agent)) ?? (await repos.agents.create(input.agent));
    const { channel } = await repos.channels.ensure(input.channel);
    await repos.submissions.create(
      {
        id,
        status: video ? 'waiting_for_upload' : 'received',
        mediaType: video ? 'video' : 'image',
        agentId: agent.id,
        channelId: channel.id,
        date: '20261127',
        metadata: input.metadata ?? {},
        visibility: 'promotion_eligible',
      },
      { type: 'agent', id: agent.id },
    );
  });
  for (const to of STATUS_PATHS[input.status]) {
    const moved = await db.transition({ id, to, actor: { type: seedActorType(to) } });
    if (!moved.ok) throw new Error(`seed: ${id} could not reach ${to}`);
  }
  return id;
}
