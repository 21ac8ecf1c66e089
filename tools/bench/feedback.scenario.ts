import pg from 'pg';
import { createDatabase } from '@framedesk/db';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the bench times the very service the feedback route and MCP tool call.
import { agentFeedback } from '@framedesk/submissions';
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks make their databases as the integration tests do.
import { createTestDatabase } from '@framedesk/testing';
import { type BenchOptions } from './options';
import { row, type ScenarioResult } from './report';
import { captureSql } from './review.scenario';
import { percentile } from './stats';

const SCENARIO = 'Agent feedback record';
const DAY_MS = 86_400_000;
/** "Now" for the record: the history ends here; the default window is the 30 days before it. */
const NOW = new Date('2026-11-01T00:00:00Z');
/** The long-lived agent's history, and the fresh agent's (the same frames per day, 30 days of them). */
const LONG_DAYS = 730;
const FRESH_DAYS = 30;

/**
 * `frames` frames of agent `id` spread evenly over the `days` before NOW, as the pipeline leaves
 * them: one in four rejected (one of three reasons), one in twenty still waiting, the rest
 * promoted; each with its transition to needs_review and, when decided, the decision 60–660 s later.
 */
async function loadAgent(db: pg.Client, id: string, frames: number, days: number): Promise<void> {
  await db.query('INSERT INTO agents (id, slug, name) VALUES ($1, $2, $2)', [id, id.replace('_', '-')]);
  const frame = `FROM generate_series(1, $1::int) g
    CROSS JOIN LATERAL (SELECT $2::timestamptz - ($1::int - g) * (interval '1 day' * $3::int / $1::int) AS at,
                               'sub_' || substr(md5($4 || g::text), 1, 22) AS id,
                               (CASE WHEN g % 20 = 0 THEN 'needs_review' WHEN g % 4 = 0 THEN 'rejected'
                                     ELSE 'promoted' END)::"SubmissionStatus" AS status,
                               (60 + g % 600) * interval '1 second' AS wait) f`;
  await db.query(
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility,
                              review_decision, review_reason, review_note, reviewed_at, created_at, updated_at)
     SELECT f.id, f.status, 'image', $4, 'ch_1', to_char(f.at, 'YYYYMMDD'), '{}', 'Frame ' || g, 'promotion_eligible',
            CASE WHEN f.status <> 'needs_review' THEN f.status::text::"ReviewDecision" END,
            CASE WHEN f.status = 'rejected' THEN (ARRAY['Low quality', 'Duplicate', 'Off topic'])[1 + g % 3] END,
            CASE WHEN f.status = 'rejected' THEN 'Crop wider' END,
            CASE WHEN f.status <> 'needs_review' THEN f.at + interval '1 minute' + f.wait END,
            f.at, f.at
       ${frame}`,
    [frames, NOW, days, id],
  );
  await db.query(
    `INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, created_at)
     SELECT f.id, 'transition', e.from_status::"SubmissionStatus", e.to_status::"SubmissionStatus", 'system', e.at
       ${frame}
      CROSS JOIN LATERAL (VALUES
        ('media_processing', 'needs_review', f.at + interval '1 minute'),
        ('needs_review', f.status::text, f.at + interval '1 minute' + f.wait)
      ) AS e(from_status, to_status, at)
      WHERE e.to_status <> 'needs_review' OR e.from_status = 'media_processing'`,
    [frames, NOW, days, id],
  );
}

/**
 * GET /v1/agents/{slug}/feedback (libs/submissions agentFeedback, what the route and the MCP tool
 * call) for an agent of `frames` frames over two years against a fresh agent with the same frames
 * per day over 30 days: the default 30-day window reads as many frames for both, so the calls
 * should cost the same however long the history. Also the longest window (365 days), for scale,
 * and each statement under EXPLAIN (ANALYZE, BUFFERS).
 */
export async function feedbackScenario(options: BenchOptions['feedback']): Promise<ScenarioResult> {
  const database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const db = createDatabase({ url: database.url, poolSize: 2 });
  try {
    const loadStarted = performance.now();
    await admin.query("INSERT INTO channels (id, slug, name) VALUES ('ch_1', 'channel-1', 'Channel 1')");
    await loadAgent(admin, 'ag_long', options.frames, LONG_DAYS);
    const perDay = options.frames / LONG_DAYS;
    await loadAgent(admin, 'ag_fresh', Math.round(perDay * FRESH_DAYS), FRESH_DAYS);
    // What autovacuum does to a table written over time; it also sets the visibility map that the
    // index-only scans read.
    await admin.query('VACUUM (ANALYZE) submissions, submission_events');
    const loadMs = performance.now() - loadStarted;

    const agents = {
      long: { agentId: 'ag_long', agentSlug: 'ag-long' },
      fresh: { agentId: 'ag_fresh', agentSlug: 'ag-fresh' },
    };
    const yearAgo = new Date(NOW.getTime() - 365 * DAY_MS).toISOString();
    const cases = {
      long: () => agentFeedback(db, agents.long, 'ag-long', {}, NOW),
      fresh: () => agentFeedback(db, agents.fresh, 'ag-fresh', {}, NOW),
      longYear: () => agentFeedback(db, agents.long, 'ag-long', { since: yearAgo }, NOW),
    };
    const answers = { long: await cases.long(), fresh: await cases.fresh(), longYear: await cases.longYear() };
    const timed: Record<keyof typeof cases, { p50: number; p99: number }[]> = { long: [], fresh: [], longYear: [] };
    for (let rep = 0; rep < options.reps; rep++) {
      for (const name of ['long', 'fresh', 'longYear'] as const) {
        const calls = name === 'longYear' ? Math.max(3, Math.round(options.iterations / 5)) : options.iterations;
        const samples: number[] = [];
        for (let i = 0; i < calls; i++) {
          const started = performance.now();
          await cases[name]();
          samples.push(performance.now() - started);
        }
        timed[name].push({ p50: percentile(samples, 50), p99: percentile(samples, 99) });
      }
    }
    await admin.query('SET jit = off');
    const plans: string[] = [];
    for (const statement of await captureSql(cases.long)) {
      if (!/^\s*SELECT/i.test(statement.text)) continue;
      const { rows } = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, [
        ...statement.values,
      ]);
      plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    const label = {
      long: `agent of ${options.frames.toLocaleString('en')} frames (2 years), 30-day window`,
      fresh: 'fresh agent (30 days, as many frames a day), 30-day window',
      longYear: 'the long-lived agent, 365-day window (the cap)',
    };
    const rows = (['long', 'fresh', 'longYear'] as const).flatMap((name) => [
      row(
        SCENARIO,
        `${label[name]} p50`,
        'ms',
        timed[name].map((r) => r.p50),
      ),
      row(
        SCENARIO,
        `${label[name]} p99`,
        'ms',
        timed[name].map((r) => r.p99),
      ),
    ]);
    return {
      name: SCENARIO,
      rows,
      details: {
        loadMs,
        timed,
        plans,
        totals: { long: answers.long.total, fresh: answers.fresh.total, year: answers.longYear.total },
      },
      notes: [
        `${options.frames.toLocaleString('en')} frames over ${LONG_DAYS} days for one agent and ${Math.round(perDay * FRESH_DAYS).toLocaleString('en')} over ${FRESH_DAYS} days for a fresh one${options.frames < 500_000 ? ' (--quick: the full run loads 500,000)' : ''}; bulk-loaded with generate_series in ${(loadMs / 1000).toFixed(1)} s.`,
        `Frames in the record: ${answers.long.total.toLocaleString('en')} (long-lived, 30 days), ${answers.fresh.total.toLocaleString('en')} (fresh), ${answers.longYear.total.toLocaleString('en')} (long-lived, 365 days). ${options.iterations} calls per case per repetition, in-process around agentFeedback (Prisma, the pg driver and PostgreSQL; no HTTP).`,
      ],
      evidence: plans,
    };
  } finally {
    await db.close();
    await admin.end();
    await database.drop();
  }
}
