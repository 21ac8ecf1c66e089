// An in-process API on a database and Redis prefix of its own, seeded for review tests.
import { createReviewer } from '@framedesk/access';
import type { Database } from '@framedesk/db';
import { newId, type Visibility } from '@framedesk/domain';
import type { ApiDependencies } from '../src/dependencies';
import { startTestServer } from './test-dependencies';

export interface ReviewHarness {
  readonly url: string;
  readonly deps: ApiDependencies;
  readonly db: Database;
  seedReviewer(email: string, password: string): Promise<void>;
  seedSubmission(input?: {
    channel?: string;
    agent?: string;
    title?: string;
    visibility?: Visibility;
    mediaType?: 'image' | 'video';
    date?: string;
  }): Promise<string>;
  close(): Promise<void>;
}

export async function startReviewHarness(env: Record<string, string> = {}): Promise<ReviewHarness> {
  const server = await startTestServer({ env });
  const { url, deps } = server;
  const db = deps.db;
  return {
    url,
    deps,
    db,
    async seedReviewer(email, password) {
      await createReviewer(db, { email, password });
    },
    async seedSubmission(input = {}) {
      const id = newId('submission');
      await db.transaction(async (repos) => {
        const { channel } = await repos.channels.ensure(input.channel ?? 'news');
        const agent =
          (await repos.agents.findBySlug(input.agent ?? 'bot')) ?? (await repos.agents.create(input.agent ?? 'bot'));
        await repos.submissions.create(
          {
            id,
            status: 'received',
            mediaType: input.mediaType ?? 'image',
            agentId: agent.id,
            channelId: channel.id,
            date: input.date ?? '20260101',
            metadata: {
              title: input.title ?? 'A frame',
              caption: 'cap',
              click_zones: [{ x: 0.1, y: 0.1, width: 0.2, height: 0.2, url: 'https://example.com/a', label: 'Buy' }],
            },
            title: input.title ?? 'A frame',
            visibility: input.visibility ?? 'promotion_eligible',
          },
          { type: 'agent', id: agent.id },
        );
      });
      for (const to of ['media_processing', 'needs_review'] as const) {
        const r = await db.transition({ id, to, actor: { type: 'system' } });
        if (!r.ok) throw new Error(`seed transition to ${to} failed`);
      }
      return id;
    },
    close: () => server.close(),
  };
}

// The reviewer's cookie jar is shared with the other apps' tests (libs/testing).
export { ReviewerClient } from '@framedesk/testing';
