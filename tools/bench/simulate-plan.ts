// The plan of `policy simulate`'s history read (libs/db policies.decidedByPeople) on a loaded
// database: `npx tsx --tsconfig tsconfig.base.json tools/bench/simulate-plan.ts [submissions]`.
// Prints EXPLAIN (ANALYZE, BUFFERS) of its first and a later batch for the largest channel
// (docs/performance.md, "Policy simulate").
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks make their databases as the integration tests do.
import { createTestDatabase } from '@framedesk/testing';
import pg from 'pg';
import { loadReviewData } from './review-data';

const submissions = Number(process.argv[2] ?? 200_000);
const database = await createTestDatabase();
const client = new pg.Client({ connectionString: database.url });
await client.connect();
try {
  await loadReviewData(client, { submissions, channels: 20, agents: 50, bigChannelFactor: 10 });
  await client.query('SET session_replication_role = origin');
  // Every decided frame decided by a person (the bench data has no reviewer).
  await client.query(
    "INSERT INTO reviewers (id, email, name, password_hash, role) VALUES ('rv_bench', 'bench@example.com', 'Bench', 'x', 'admin')",
  );
  await client.query("UPDATE submissions SET reviewer_id = 'rv_bench' WHERE status IN ('promoted', 'rejected')");
  // WITHOUT_INDEX=1: the plan before submissions_decided_by_people_idx.
  if (process.env['WITHOUT_INDEX'] === '1') await client.query('DROP INDEX submissions_decided_by_people_idx');
  await client.query('VACUUM ANALYZE submissions');
  const statement = (after: boolean) => `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
    SELECT s.id, s.created_at AS "createdAt", s.status::text AS decision, s.review_reason AS reason,
           s.agent_id AS "agentId", a.slug AS "agentSlug", s.media_type::text AS "mediaType",
           s.metadata, s.width, s.height, s.duration_ms AS "durationMs", s.signals,
           (SELECT m.byte_size FROM media_objects m
             WHERE m.submission_id = s.id AND m.kind = 'original' LIMIT 1) AS bytes
    FROM submissions s JOIN agents a ON a.id = s.agent_id
    WHERE s.channel_id = 'ch_big' AND s.created_at >= now() - interval '365 days'
      AND s.status IN ('promoted', 'rejected') AND s.reviewer_id IS NOT NULL
      ${after ? "AND (s.created_at, s.id) > ('2026-06-01'::timestamptz, '')" : ''}
    ORDER BY s.created_at, s.id
    LIMIT 500`;
  for (const after of [false, true]) {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(statement(after));
    console.log(after ? '\n-- a later batch' : '-- the first batch');
    console.log(rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
} finally {
  await client.end();
  await database.drop();
}
