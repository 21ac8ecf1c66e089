// Reads from a streaming replica (DATABASE_READ_URL), on the Patroni engine (three PostgreSQL 15
// nodes behind HAProxy; the read URL is its read-only port). The replicas' replay is held
// (whileReplicasBehind: a recovery conflict; Patroni resumes a paused replay within a second) to
// make a replica's view differ from the primary's, so which server answered is plain to see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterDatabase,
  createClusterDatabase,
  patroniQuery,
  seedWaitingFrames,
  startEngine,
  type TestDatabase,
  waitForHealthy,
  whileReplicasBehind,
} from '@framedesk/testing';
import { ALL_CHANNELS } from './channel-scope';
import { createDatabase, type Database } from './client';

let cluster: ClusterDatabase;
let db: Database;

/** One more waiting frame, on the primary only while the replicas' replay is held. */
const queryOnceOnPrimary = () =>
  patroniQuery(
    cluster.url,
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, title, visibility, created_at, updated_at)
     SELECT 'sub_Seed000000000000000009', 'needs_review', 'image', a.id, c.id, '20260301', 'late', 'promotion_eligible', now(), now()
     FROM agents a, channels c WHERE a.slug = 'bot' AND c.slug = 'news'`,
  );

const queue = (repos: Database['repos']) =>
  repos.review.queue({ scope: ALL_CHANNELS, limit: 10 }).then((rows) => rows.map((r) => r.id).sort());

beforeAll(async () => {
  await startEngine('patroni');
  await waitForHealthy();
  cluster = await createClusterDatabase();
  db = createDatabase({ url: cluster.url, readUrl: cluster.readUrl, poolSize: 2 });
  const agent = await db.repos.agents.create('bot');
  await db.repos.agents.allowChannels(agent.id, [(await db.repos.channels.ensure('news')).channel.id]);
  for (let deadline = Date.now() + 30_000; !(await db.replicaStatus()).inUse;) {
    if (Date.now() > deadline) throw new Error('the replica never came into use');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 180_000);

afterAll(async () => {
  await db?.close();
  await cluster?.drop().catch(() => undefined);
});

describe('reads from a replica (DATABASE_READ_URL)', () => {
  it('serves a queue page from a server in recovery', async () => {
    const status = await db.replicaStatus({ probe: true });
    expect({ role: status.role, inUse: status.inUse }).toEqual({ role: 'replica', inUse: true });
    await whileReplicasBehind(cluster, async () => {
      await seedWaitingFrames({ url: cluster.url } as TestDatabase, {
        agentSlug: 'bot',
        channelSlug: 'news',
        count: 3,
      });
      // The primary has the frames; the replica (replay held) does not yet: the read went there.
      expect(await queue(db.repos)).toHaveLength(3);
      expect(await queue(db.readRepos())).toEqual([]);
    });
    await expect.poll(() => queue(db.readRepos()), { timeout: 30_000 }).toHaveLength(3);
  });

  it('never returns a frame decided on the primary that the replica has not replayed yet', async () => {
    const before = await queue(db.readRepos());
    expect(before).toHaveLength(3);
    await whileReplicasBehind(cluster, async () => {
      await patroniQuery(cluster.url, `UPDATE submissions SET status = 'promoted' WHERE id = $1`, [before[0]]);
      const replicaView = await patroniQuery<{ status: string }>(
        cluster.readUrl,
        'SELECT status::text FROM submissions WHERE id = $1',
        [before[0]],
      );
      expect(replicaView[0]?.status).toBe('needs_review'); // the replica still has it waiting
      expect(await queue(db.readRepos())).toEqual(before.slice(1));
    });
  });

  it('reads on the primary while the replica lags beyond the bound, and counts it', async () => {
    // A bound no replica can meet (every lag is ≥ 0): as a replica too far behind is treated.
    const lagging = createDatabase({ url: cluster.url, readUrl: cluster.readUrl, poolSize: 1, maxReadLagBytes: -1 });
    try {
      await expect.poll(async () => (await lagging.replicaStatus()).role, { timeout: 10_000 }).toBe('replica');
      expect((await lagging.replicaStatus()).inUse).toBe(false);
      const fallbacks = (await lagging.replicaStatus()).fallbacks;
      await whileReplicasBehind(cluster, async () => {
        await queryOnceOnPrimary();
        // Replay held, the primary has a frame the replica has not: the read went to the primary.
        expect(await queue(lagging.readRepos())).toEqual(await queue(lagging.repos));
        expect(await queue(lagging.readRepos())).toContain('sub_Seed000000000000000009');
        expect((await lagging.replicaStatus()).fallbacks).toBe(fallbacks + 2);
      });
    } finally {
      await lagging.close();
    }
  });
});
