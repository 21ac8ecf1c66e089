// Reads from replicas through the API (issue 44, point 3), on the Patroni engine: DATABASE_URL is
// HAProxy's read-write port, DATABASE_READ_URL its read-only port (the streaming replicas). The
// replicas replay nothing while a test writes (whileReplicasBehind: a recovery conflict holds their
// replay), so that their view differs from the primary's by exactly that write: which server
// answered a read is then plain to see. No member is stopped, paused or switched over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CHANNELS } from '@framedesk/db';
import {
  type ClusterDatabase,
  clusterTestDatabase,
  createClusterDatabase,
  freePort,
  patroniQuery,
  startEngine,
  type TestDatabase,
  waitForHealthy,
  waitUntil,
  whileReplicasBehind,
} from '@framedesk/testing';
import { startTestApi, type TestApi } from './harness';
import { type ReviewerClient, seedNeedsReview, signIn } from './review-harness';

const PASSWORD = 'a-long-enough-password';
const ADMIN = 'ada@example.com';
const POLICY = { rules: [{ name: 'any', when: 'frame.media.width >= 0', action: 'promote' }] };
// The bound is not what most tests here are about: wide enough that WAL written meanwhile by other
// tests on the cluster never sets the replica aside while its replay is held.
const WIDE_BOUND = String(1024 * 1024 * 1024);

let cluster: ClusterDatabase;
let api: TestApi;
let ada: ReviewerClient;
let agentKey: string;

/** The same database for a second API: the first one's `stop()` drops it. */
const shared = (): TestDatabase => ({ ...clusterTestDatabase(cluster), drop: async () => undefined });

beforeAll(async () => {
  await startEngine('patroni');
  await waitForHealthy();
  cluster = await createClusterDatabase();
  api = await startTestApi({
    database: clusterTestDatabase(cluster),
    env: {
      DATABASE_READ_URL: cluster.readUrl,
      DATABASE_READ_MAX_LAG_BYTES: WIDE_BOUND,
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  agentKey = await api.createAgent('bot', ['news']);
  ada = await signIn(api, ADMIN, PASSWORD);
  await waitUntil('the replica in use', async () => (await api.deps.db.replicaStatus()).inUse, 30_000);
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await cluster?.drop().catch(() => undefined);
});

const seed = () => seedNeedsReview(api.deps.db, { channel: 'news', agent: 'bot' });

async function json(client: ReviewerClient, method: string, path: string, body?: unknown) {
  const res = await client.call(method, path, body);
  expect(res.status, `${method} ${path}`).toBe(200);
  return res.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const queueIds = async (client: ReviewerClient): Promise<string[]> =>
  ((await json(client, 'GET', '/review/queue?channel=news&limit=200')).items as { id: string }[]).map((i) => i.id);

/** What the replicas have of the frames (the read-only port: either replica). */
const onReplica = async (ids: string[]) =>
  patroniQuery<{ id: string; status: string }>(
    cluster.readUrl,
    'SELECT id, status::text FROM submissions WHERE id = ANY($1) ORDER BY id',
    [ids],
  );

/** The API's own metrics: fallbacks to the primary, whether the replica is in use, its lag. */
async function replicaMetrics(base: string) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    return match ? Number(match[1]) : undefined;
  };
  return {
    fallbacks: value('framedesk_db_replica_fallback_reads_total'),
    inUse: value('framedesk_db_replica_in_use'),
    lagBytes: value('framedesk_db_replica_lag_bytes'),
  };
}

describe('reads from a replica through the API (DATABASE_READ_URL)', () => {
  it('serves the review queue from a server in recovery: a page without the frames the replica has not replayed', async () => {
    const [server] = await patroniQuery<{ r: boolean }>(cluster.readUrl, 'SELECT pg_is_in_recovery() AS r');
    expect(server?.r).toBe(true);
    const before = await api.deps.db.replicaStatus();
    expect(before).toMatchObject({ configured: true, role: 'replica', inUse: true });
    const ids = await whileReplicasBehind(cluster, async () => {
      const ids = [await seed(), await seed(), await seed()];
      // The primary has the three waiting; the replicas have not replayed them.
      const waiting = await api.deps.db.repos.review.queue({ scope: ALL_CHANNELS, limit: 200 });
      expect(waiting.map((r) => r.id)).toEqual(expect.arrayContaining(ids));
      expect(await onReplica(ids)).toEqual([]);
      // The page the API serves has none of them: it was read on a replica.
      expect((await queueIds(ada)).filter((id) => ids.includes(id))).toEqual([]);
      return ids;
    });
    // Replayed, the replica's page shows them.
    await expect.poll(() => queueIds(ada), { timeout: 30_000 }).toEqual(expect.arrayContaining(ids));
    // Not one read fell back to the primary, and /metrics says the replica is in use.
    expect((await api.deps.db.replicaStatus()).fallbacks).toBe(before.fallbacks);
    expect(await replicaMetrics(api.url)).toEqual({
      fallbacks: before.fallbacks,
      inUse: 1,
      lagBytes: expect.any(Number),
    });
  });

  it('never returns a frame on the next page once a reviewer decided it, though the replica still has it waiting', async () => {
    const ids = [await seed(), await seed(), await seed(), await seed(), await seed()];
    await expect.poll(() => queueIds(ada), { timeout: 30_000 }).toEqual(expect.arrayContaining(ids));
    await whileReplicasBehind(cluster, async () => {
      for (const [i, id] of ids.entries()) {
        const body = i % 2 === 0 ? { decision: 'reject', reason: 'Low quality' } : { decision: 'promote' };
        await json(ada, 'POST', `/review/submissions/${id}/decision`, body);
        // The replica has not replayed the decision: the frame still waits there...
        expect(await onReplica([id])).toEqual([{ id, status: 'needs_review' }]);
        // ...and the next page, read there, returns none of the decided frames, every undecided one.
        const page = await queueIds(ada);
        expect(page.filter((x) => ids.slice(0, i + 1).includes(x))).toEqual([]);
        expect(page).toEqual(expect.arrayContaining(ids.slice(i + 1)));
      }
    });
  });

  it('serves the Team view, audit export, ops page, agent feedback record and simulate from the replica', async () => {
    const fallbacks = (await api.deps.db.replicaStatus()).fallbacks;
    // Rejections each read counts, read through the API.
    const seen = async () => ({
      team: (await json(ada, 'GET', '/review/team')).reviewers.find((r: { email: string }) => r.email === ADMIN)
        .rejected as number,
      audit: (await ada.call('GET', '/review/audit?channel=news&format=jsonl').then((r) => r.text()))
        .split('\n')
        .filter((line) => line && JSON.parse(line).to === 'rejected').length,
      ops: (await json(ada, 'GET', '/review/ops')).submissions_by_status.rejected as number,
      feedback: (await api.call('GET', '/v1/agents/bot/feedback', { key: agentKey })).body.counts.rejected as number,
      simulate: (await json(ada, 'POST', '/review/channels/news/policy/simulate', { policy: POLICY, since: '1d' }))
        .rules[0].people_rejected as number,
    });
    const rejected = async () =>
      Number(
        (
          await patroniQuery<{ n: string }>(
            cluster.url,
            "SELECT count(*) AS n FROM submissions WHERE status = 'rejected'",
          )
        )[0]!.n,
      );
    const all = (n: number) => ({ team: n, audit: n, ops: n, feedback: n, simulate: n });
    // One rejection first, so that every count has a value to compare.
    const [first, id] = [await seed(), await seed()];
    await json(ada, 'POST', `/review/submissions/${first}/decision`, { decision: 'reject', reason: 'Low quality' });
    const before = await rejected();
    await expect.poll(seen, { timeout: 30_000, interval: 250 }).toEqual(all(before));
    await whileReplicasBehind(cluster, async () => {
      await json(ada, 'POST', `/review/submissions/${id}/decision`, { decision: 'reject', reason: 'Low quality' });
      expect(await rejected()).toBe(before + 1);
      // Every one of them still reads the replica's view, which has not replayed the rejection.
      expect(await seen()).toEqual(all(before));
    });
    await expect.poll(seen, { timeout: 30_000, interval: 250 }).toEqual(all(before + 1));
    expect((await api.deps.db.replicaStatus()).fallbacks).toBe(fallbacks);
  });
});

describe('falling back to the primary', () => {
  it('reads on the primary while the replica does not answer, and counts each read', async () => {
    const closed = await freePort(); // nothing listens there
    const other = await startTestApi({
      database: shared(),
      env: { DATABASE_READ_URL: `postgresql://postgres:postgres@127.0.0.1:${closed}/${cluster.name}` },
    });
    try {
      const bob = await signIn(other, 'bob@example.com', PASSWORD);
      await expect.poll(async () => (await other.deps.db.replicaStatus()).role).toBe('unreachable');
      const id = await seed();
      const before = (await other.deps.db.replicaStatus()).fallbacks;
      // The frame written a moment ago is on the page: the primary served it.
      expect(await queueIds(bob)).toContain(id);
      expect((await bob.call('GET', '/review/team')).status).toBe(200);
      expect((await bob.call('GET', '/review/ops')).status).toBe(200);
      expect((await bob.call('GET', '/review/audit?format=jsonl')).status).toBe(200);
      expect((await other.call('GET', '/v1/agents/bot/feedback', { key: agentKey })).status).toBe(200);
      const simulate = { policy: POLICY, since: '1d' };
      expect((await bob.call('POST', '/review/channels/news/policy/simulate', simulate)).status).toBe(200);
      expect((await other.deps.db.replicaStatus()).fallbacks).toBe(before + 6);
      // /metrics says so (its scrape reads the cluster gauges, on the primary too: counted as well).
      const metrics = await replicaMetrics(other.url);
      expect(metrics.inUse).toBe(0);
      expect(metrics.lagBytes).toBeNaN(); // unknown
      expect(metrics.fallbacks).toBeGreaterThanOrEqual(before + 6);
    } finally {
      await other.stop();
    }
  });

  it('reads on the primary while the replica is further behind than DATABASE_READ_MAX_LAG_BYTES, and counts them', async () => {
    const other = await startTestApi({
      database: shared(),
      env: { DATABASE_READ_URL: cluster.readUrl, DATABASE_READ_MAX_LAG_BYTES: '0' },
    });
    try {
      const bob = await signIn(other, 'cy@example.com', PASSWORD);
      await expect.poll(async () => (await other.deps.db.replicaStatus()).role).toBe('replica');
      await whileReplicasBehind(cluster, async () => {
        const id = await seed();
        // Any WAL not replayed is past a bound of 0 bytes: the replica is set aside.
        await expect.poll(async () => (await other.deps.db.replicaStatus()).inUse, { timeout: 10_000 }).toBe(false);
        const before = (await other.deps.db.replicaStatus()).fallbacks;
        expect(await onReplica([id])).toEqual([]);
        expect(await queueIds(bob)).toContain(id); // the primary's view
        expect((await other.deps.db.replicaStatus()).fallbacks).toBe(before + 1);
        const metrics = await replicaMetrics(other.url);
        expect(metrics).toMatchObject({ inUse: 0, lagBytes: expect.any(Number) });
        expect(metrics.lagBytes).toBeGreaterThan(0);
        expect(metrics.fallbacks).toBeGreaterThanOrEqual(before + 1);
      });
    } finally {
      await other.stop();
    }
  });
});
