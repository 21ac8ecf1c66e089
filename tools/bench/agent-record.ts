// The review policies' agent record (agent.*) for an agent of 300,000 frames decided by people
// against a fresh agent: `npx tsx --tsconfig tsconfig.base.json tools/bench/agent-record.ts [frames]`.
// Times the statement the finishing transaction runs for it (libs/db agentDecisionsSql: the
// per-day counter) and, for comparison, the count it replaced, 200 times each (docs/performance.md,
// "What an accepted frame costs").
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks make their databases as the integration tests do.
import { createTestDatabase } from '@framedesk/testing';
import pg from 'pg';
import { loadReviewData } from './review-data';
import { median } from './stats';

const frames = Number(process.argv[2] ?? 300_000);
const database = await createTestDatabase();
const client = new pg.Client({ connectionString: database.url });
await client.connect();
try {
  // 20,000 frames of 50 agents, then the busy agent's decided frames, all in the last 30 days.
  await loadReviewData(client, { submissions: 20_000, channels: 5, agents: 50, bigChannelFactor: 1 });
  await client.query('SET session_replication_role = origin');
  await client.query(
    "INSERT INTO reviewers (id, email, name, password_hash, role) VALUES ('rv_bench', 'bench@example.com', 'Bench', 'x', 'admin')",
  );
  await client.query(
    "INSERT INTO agents (id, slug, name) VALUES ('ag_busy', 'agent-busy', 'Busy'), ('ag_fresh', 'agent-fresh', 'Fresh')",
  );
  const started = performance.now();
  await client.query(
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility,
                              review_decision, reviewed_at, reviewer_id, width, height, created_at, updated_at)
     SELECT 'busy_' || g, s.status, 'image', 'ag_busy', 'ch_1', to_char(t.at, 'YYYYMMDD'), '{}', 'Frame', 'promotion_eligible',
            s.status::text::"ReviewDecision", t.at, 'rv_bench', 1280, 720, t.at, t.at
       FROM generate_series(1, $1::int) g
      CROSS JOIN LATERAL (SELECT now() - g * (interval '29 days' / $1::int) AS at) t
      CROSS JOIN LATERAL (SELECT (CASE WHEN g % 10 < 9 THEN 'promoted' ELSE 'rejected' END)::"SubmissionStatus" AS status) s`,
    [frames],
  );
  console.log(`loaded ${frames} decided frames in ${((performance.now() - started) / 1000).toFixed(1)} s (trigger on)`);
  await client.query('VACUUM ANALYZE');
  const counter = `SELECT coalesce(sum(promoted), 0)::bigint AS promoted, coalesce(sum(rejected), 0)::bigint AS rejected
      FROM agent_decision_days WHERE agent_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date`;
  const count = `SELECT count(*) FILTER (WHERE status = 'promoted') AS promoted, count(*) FILTER (WHERE status = 'rejected') AS rejected
      FROM submissions WHERE agent_id = $1 AND created_at >= $2 AND reviewer_id IS NOT NULL AND status IN ('promoted', 'rejected')`;
  const since = new Date(Date.now() - 30 * 86_400_000);
  const time = async (sql: string, agent: string) => {
    const ms: number[] = [];
    let answer: unknown;
    for (let i = 0; i < 220; i++) {
      const t = performance.now();
      answer = (await client.query(sql, [agent, since])).rows[0];
      if (i >= 20) ms.push(performance.now() - t);
    }
    return { median: median(ms), answer };
  };
  for (const [name, sql] of [
    ['counter (now)', counter],
    ['count (before)', count],
  ] as const) {
    for (const agent of ['ag_busy', 'ag_fresh']) {
      const r = await time(sql, agent);
      console.log(
        `${name.padEnd(15)} ${agent.padEnd(9)} median ${r.median.toFixed(3)} ms  ${JSON.stringify(r.answer)}`,
      );
    }
  }
} finally {
  await client.end();
  await database.drop();
}
