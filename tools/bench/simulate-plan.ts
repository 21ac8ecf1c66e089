// The plan of `policy simulate`'s history read (libs/db policies.decidedByPeople) on a loaded
// database: `npx tsx --tsconfig tsconfig.base.json tools/bench/simulate-plan.ts [submissions]`.
// Prints EXPLAIN (ANALYZE, BUFFERS) of its first and a later batch for the largest channel
// (docs/performance.md, "Policy simulate").
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks make their databases as the integration tests do.
import { createDatabase } from '@framedesk/db';
// eslint-disable-next-line @nx/enforce-module-boundaries -- as above.
import { createTestDatabase } from '@framedesk/testing';
import pg from 'pg';
import { loadReviewData } from './review-data';
import { captureSql } from './review.scenario';

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
  // The statement is the repository's own, caught as it is sent (no copy of its SQL to drift).
  const db = createDatabase({ url: database.url, poolSize: 1 });
  try {
    const since = new Date(Date.now() - 365 * 86_400_000);
    const laterBatch = { createdAt: new Date('2026-06-01T00:00:00Z'), id: '' };
    for (const after of [undefined, laterBatch]) {
      const sent = await captureSql(() =>
        db.repos.policies.decidedByPeople({ channelId: 'ch_big', since, limit: 500, ...(after ? { after } : {}) }),
      );
      const read = sent.find(({ text }) => /FROM submissions s JOIN agents/.test(text));
      if (!read) throw new Error(`decidedByPeople sent no history read: ${sent.map((s) => s.text).join('; ')}`);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${read.text}`,
        [...read.values],
      );
      console.log(after ? '\n-- a later batch' : '-- the first batch');
      console.log(rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
  } finally {
    await db.close();
  }
} finally {
  await client.end();
  await database.drop();
}
