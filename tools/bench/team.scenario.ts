import pg from 'pg';
import { createDatabase } from '@framedesk/db';
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmarks make their databases as the integration tests do.
import { createTestDatabase } from '@framedesk/testing';
import { type BenchOptions } from './options';
import { atMost, row, type ScenarioResult } from './report';
import { processCpuMs } from './cpu';
import { captureSql } from './review.scenario';
import { percentile } from './stats';

const SCENARIO = 'Team view';
const TARGET_MS = 200;
const YEAR_CALLS = 3;
const DAY_MS = 86_400_000;
/** The history ends here; the timed window is the 30 days before it (the Team view's default). */
const END = new Date('2026-11-01T00:00:00Z');

/**
 * `frames` decided frames over 365 days, `reviewers` reviewers taking turns, each frame with the
 * events a real one has: two system transitions (to processing, to review), the reviewer's claim
 * and their decision. One frame in 20 asks for two approvals: its reviewer's `approval`, then the
 * next reviewer's rejection. One in 10 was sampled by a policy (`agrees_with_policy` in the
 * decision's data). Bulk-loaded with INSERT … SELECT generate_series, secondary indexes dropped
 * first and rebuilt from the migrations' very definitions.
 */
export async function loadTeamHistory(
  db: pg.Client,
  frames: number,
  reviewers: number,
): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  const step = async (name: string, sql: string, params: unknown[] = []) => {
    if (!sql) return;
    const started = performance.now();
    await db.query(sql, params);
    timings[name] = performance.now() - started;
  };
  await db.query("SET session_replication_role = replica; SET maintenance_work_mem = '256MB'");
  const { rows: indexes } = await db.query<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('submissions', 'submission_events') AND indexname NOT LIKE '%\\_pkey'",
  );
  await step('drop indexes', indexes.map((i) => `DROP INDEX "${i.indexname}";`).join('\n'));
  await step(
    'channel, agent, reviewers',
    `INSERT INTO channels (id, slug, name) VALUES ('ch_1', 'channel-1', 'Channel 1');
     INSERT INTO agents (id, slug, name) VALUES ('ag_1', 'agent-1', 'Agent 1');
     INSERT INTO reviewers (id, email, role) SELECT 'rv_' || r, 'reviewer-' || r || '@example.com', 'reviewer'
       FROM generate_series(0, ${reviewers - 1}) r`,
  );
  // Frame g is decided at `at` by reviewer g % reviewers.
  const frame = `FROM generate_series(1, $1::int) g
    CROSS JOIN LATERAL (SELECT $2::timestamptz - ($1::int - g) * (interval '365 days' / $1::int) AS at,
                               'sub_' || substr(md5(g::text), 1, 22) AS id, 'rv_' || (g % $3::int) AS rv,
                               'rv_' || ((g + 1) % $3::int) AS second) f`;
  await step(
    'submissions',
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility,
                              review_decision, reviewer_id, reviewed_at, approvals_required, created_at, updated_at)
     SELECT f.id, d.status, 'image', 'ag_1', 'ch_1', to_char(f.at, 'YYYYMMDD'), '{"title": "bench frame"}',
            'Frame ' || g, 'promotion_eligible', d.status::text::"ReviewDecision",
            CASE WHEN g % 20 = 0 THEN f.second ELSE f.rv END, f.at, CASE WHEN g % 20 = 0 THEN 2 ELSE 1 END,
            f.at - interval '10 minutes', f.at
       ${frame}
      CROSS JOIN LATERAL (SELECT (CASE WHEN g % 20 = 0 OR g % 4 = 0 THEN 'rejected' ELSE 'promoted' END)::"SubmissionStatus" AS status) d`,
    [frames, END, reviewers],
  );
  await step(
    'submission_events',
    `INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, actor_id, data, created_at)
     SELECT f.id, e.type, e.from_status::"SubmissionStatus", e.to_status::"SubmissionStatus", e.actor::"ActorType",
            e.actor_id, e.data, e.at
       ${frame}
      CROSS JOIN LATERAL (VALUES
        ('transition', 'received', 'media_processing', 'system', NULL, NULL::jsonb, f.at - interval '10 minutes'),
        ('transition', 'media_processing', 'needs_review', 'system', NULL, NULL, f.at - interval '9 minutes'),
        ('claimed', NULL, NULL, 'reviewer', f.rv, NULL, f.at - (5 + g % 90) * interval '1 second'),
        (CASE WHEN g % 20 = 0 THEN 'approval' ELSE 'transition' END,
         CASE WHEN g % 20 = 0 THEN NULL ELSE 'needs_review' END,
         CASE WHEN g % 20 = 0 THEN NULL WHEN g % 4 = 0 THEN 'rejected' ELSE 'promoted' END,
         'reviewer', f.rv,
         CASE WHEN g % 10 = 1 THEN jsonb_build_object('policy_suggestion', 'promote', 'agrees_with_policy', g % 3 <> 0) END,
         f.at),
        ('transition', 'needs_review', 'rejected', 'reviewer', f.second, NULL, f.at + interval '5 minutes')
      ) AS e(type, from_status, to_status, actor, actor_id, data, at)
      WHERE e.actor_id IS DISTINCT FROM f.second OR g % 20 = 0`,
    [frames, END, reviewers],
  );
  await step('create indexes', indexes.map((i) => `${i.indexdef};`).join('\n'));
  await db.query('SET session_replication_role = origin; RESET maintenance_work_mem');
  // VACUUM, not only ANALYZE: autovacuum does it to a table written over a year (inserts trigger it
  // since PostgreSQL 13), and it sets the visibility map the Team view's index-only scan reads.
  await step('vacuum analyze', 'VACUUM (ANALYZE) reviewers, submissions, submission_events');
  return timings;
}

/**
 * The Team view's statement (libs/db teamStats.perReviewer, what GET /review/team delegates to) on
 * 500,000 decided frames: timed in-process for the default 30-day window and for a whole year,
 * then run once under EXPLAIN ANALYZE.
 */
export async function teamScenario(options: BenchOptions['team']): Promise<ScenarioResult> {
  const database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const db = createDatabase({ url: database.url, poolSize: 2 });
  try {
    const loadStarted = performance.now();
    const loadTimings = await loadTeamHistory(admin, options.frames, options.reviewers);
    const loadMs = performance.now() - loadStarted;
    const windows = {
      month: { since: new Date(END.getTime() - 30 * DAY_MS), until: END },
      year: { since: new Date(END.getTime() - 365 * DAY_MS), until: END },
    };
    const [{ count: events }] = (await admin.query<{ count: string }>('SELECT count(*) FROM submission_events'))
      .rows as [{ count: string }];
    const answers = {
      month: await db.repos.teamStats.perReviewer(windows.month),
      year: await db.repos.teamStats.perReviewer(windows.year),
    };
    const decisions = (w: keyof typeof answers) => answers[w].reduce((n, r) => n + r.decisions, 0);

    const backendPid = async () =>
      (
        await admin.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows.map((r) => r.pid);
    const timed: Record<keyof typeof windows, { p50: number; p99: number; databaseCpuMs: number }[]> = {
      month: [],
      year: [],
    };
    for (let rep = 0; rep < options.reps; rep++) {
      for (const w of ['month', 'year'] as const) {
        // The year's window is there for scale, timed a few times in the first repetition only.
        const calls = w === 'month' ? options.iterations : rep === 0 ? YEAR_CALLS : 0;
        if (calls === 0) continue;
        const samples: number[] = [];
        const pids = await backendPid();
        const before = await Promise.all(pids.map(async (p) => (await processCpuMs(p)) ?? 0));
        for (let i = 0; i < calls; i++) {
          const started = performance.now();
          await db.repos.teamStats.perReviewer(windows[w]);
          samples.push(performance.now() - started);
        }
        const after = await Promise.all(pids.map(async (p) => (await processCpuMs(p)) ?? 0));
        timed[w].push({
          p50: percentile(samples, 50),
          p99: percentile(samples, 99),
          databaseCpuMs: after.reduce((n, ms, i) => n + ms - before[i]!, 0) / calls,
        });
      }
    }
    // The exact statement Prisma sends, under EXPLAIN ANALYZE.
    await admin.query('SET jit = off');
    const plans: Record<string, string> = {};
    for (const w of ['month', 'year'] as const) {
      // The statement itself, not the BEGIN, SET LOCAL jit and COMMIT around it.
      const statement = (await captureSql(() => db.repos.teamStats.perReviewer(windows[w]))).find((s) =>
        s.text.includes('CROSS JOIN LATERAL'),
      );
      if (!statement) continue;
      const { rows } = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, [
        ...statement.values,
      ]);
      plans[w] = rows.map((r) => r['QUERY PLAN']).join('\n');
    }
    const label = { month: 'GET /review/team query, 30-day window', year: 'the same, 365-day window (every frame)' };
    const rows = (['month', 'year'] as const).flatMap((w) => [
      row(
        SCENARIO,
        `${label[w]} p50`,
        'ms',
        timed[w].map((r) => r.p50),
        w === 'month' ? atMost(TARGET_MS, ' ms') : undefined,
      ),
      row(
        SCENARIO,
        `${label[w]} p99`,
        'ms',
        timed[w].map((r) => r.p99),
      ),
      row(
        SCENARIO,
        `${label[w]}: PostgreSQL CPU per call`,
        'ms',
        timed[w].map((r) => r.databaseCpuMs),
      ),
    ]);
    const missed = rows.some((r) => r.target && !r.target.met);
    return {
      name: SCENARIO,
      rows,
      details: { loadMs, loadTimings, events: Number(events), timed, plans },
      notes: [
        `${options.frames.toLocaleString('en')} decided frames over 365 days${options.frames < 500_000 ? ' (--quick: the full run loads 500,000)' : ''}, ${options.reviewers} reviewers, ${Number(events).toLocaleString('en')} submission_events; bulk-loaded in ${(loadMs / 1000).toFixed(1)} s.`,
        `Decisions counted: ${decisions('month').toLocaleString('en')} in the 30-day window, ${decisions('year').toLocaleString('en')} in the year. ${options.iterations} calls of the 30-day window per repetition (${YEAR_CALLS} of the year's, once), in-process around teamStats.perReviewer (Prisma, the pg driver and PostgreSQL; no HTTP).`,
      ],
      ...(missed ? { evidence: Object.entries(plans).map(([w, plan]) => `${w}:\n${plan}`) } : {}),
    };
  } finally {
    await db.close();
    await admin.end();
    await database.drop();
  }
}
