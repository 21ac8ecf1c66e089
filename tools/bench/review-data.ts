import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Bulk-loads a review workload in a few INSERT … SELECT generate_series statements:
 * `channels` channels, `agents` agents allowed on every channel, `submissions` image submissions
 * spread over 330 days (20% needs_review, 50% promoted, 15% rejected, 5% failed, 10% processing),
 * each with its original and, once processed, its three variants as media objects. One more
 * channel, `channel-big`, holds `bigChannelFactor` times as many submissions as each of the
 * others (the same mix), to show that page reads do not grow with a channel.
 */
export async function loadReviewData(
  db: pg.Client,
  sizes: { submissions: number; channels: number; agents: number; bigChannelFactor: number },
): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  const step = async (name: string, sql: string, params: unknown[] = []) => {
    if (!sql) return;
    const started = performance.now();
    await db.query(sql, params);
    timings[name] = performance.now() - started;
  };
  const { submissions: regular, channels, agents } = sizes;
  const n = regular + bigChannelRows(sizes);
  // Bulk-load as one would restore a dump: foreign-key triggers off for this session (the rows
  // are consistent by construction) and secondary indexes built once after the rows are in, with
  // the very definitions the migrations made.
  await db.query("SET session_replication_role = replica; SET maintenance_work_mem = '256MB'");
  const { rows: indexes } = await db.query<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('submissions', 'media_objects') AND indexname NOT LIKE '%\\_pkey'",
  );
  await step('drop indexes', indexes.map((i) => `DROP INDEX "${i.indexname}";`).join('\n'));
  await step(
    'channels',
    `INSERT INTO channels (id, slug, name) SELECT 'ch_' || c, 'channel-' || c, 'Channel ' || c FROM generate_series(1, $1::int) c
     UNION ALL SELECT 'ch_big', 'channel-big', 'Channel ten times larger'`,
    [channels],
  );
  await step(
    'agents',
    `INSERT INTO agents (id, slug, name) SELECT 'ag_' || a, 'agent-' || a, 'Agent ' || a FROM generate_series(1, $1::int) a`,
    [agents],
  );
  await step(
    'agent_channels',
    `INSERT INTO agent_channels (agent_id, channel_id) SELECT 'ag_' || a, 'ch_' || c FROM generate_series(1, $1::int) a, generate_series(1, $2::int) c
     UNION ALL SELECT 'ag_' || a, 'ch_big' FROM generate_series(1, $1::int) a`,
    [agents, channels],
  );
  // Blocks of 20 consecutive rows share a channel and cover every status once, so channel and
  // status are independent; the id is an md5 prefix, so the primary key is as random as real ids.
  await step(
    'submissions',
    `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility,
                              review_decision, reviewed_at, width, height, created_at, updated_at)
     SELECT 'sub_' || substr(md5(g::text), 1, 22), s.status, 'image', 'ag_' || (1 + g % $2::int), CASE WHEN g > $4::int THEN 'ch_big' ELSE 'ch_' || (1 + (g / 20) % $3::int) END,
            to_char(t.at, 'YYYYMMDD'), '{"title": "bench frame"}', 'Frame ' || g, 'promotion_eligible',
            CASE WHEN s.status IN ('promoted', 'rejected') THEN s.status::text::"ReviewDecision" END,
            CASE WHEN s.status IN ('promoted', 'rejected') THEN t.at + interval '1 hour' END,
            1280, 720, t.at, t.at
       FROM generate_series(1, $1::int) g
      CROSS JOIN LATERAL (SELECT timestamptz '2026-01-01 00:00:00Z' + g * (interval '330 days' / $1::int) AS at) t
      CROSS JOIN LATERAL (SELECT (CASE WHEN g % 20 < 4 THEN 'needs_review' WHEN g % 20 < 14 THEN 'promoted'
                                       WHEN g % 20 < 17 THEN 'rejected' WHEN g % 20 = 17 THEN 'failed'
                                       ELSE 'media_processing' END)::"SubmissionStatus" AS status) s`,
    [n, agents, channels, regular],
  );
  await step(
    'media_objects',
    `INSERT INTO media_objects (id, submission_id, kind, name, bucket, key, content_type, byte_size, width, height)
     SELECT 'mo_' || g || '_' || v.name, 'sub_' || substr(md5(g::text), 1, 22), v.kind, v.name, 'framedesk-originals',
            v.kind || 's/sub_' || substr(md5(g::text), 1, 22) || '/' || v.name, v.type, v.bytes, v.w, v.h
       FROM generate_series(1, $1::int) g
      CROSS JOIN (VALUES ('original', 'original', 'image/png', 1300000, 1280, 720), ('variant', 'public', 'image/webp', 90000, 1280, 720),
                         ('variant', 'thumbnail', 'image/webp', 6000, 256, 144), ('variant', 'preview', 'image/webp', 60000, 1024, 576))
            AS v(kind, name, type, bytes, w, h)
      WHERE v.kind = 'original' OR g % 20 < 17`,
    [n],
  );
  await step('create indexes', indexes.map((i) => `${i.indexdef};`).join('\n'));
  await db.query('SET session_replication_role = origin; RESET maintenance_work_mem');
  await step('analyze', 'ANALYZE channels, agents, agent_channels, submissions, media_objects');
  return timings;
}

/** How many submissions the 10× channel holds: `bigChannelFactor` times a regular channel's. */
export function bigChannelRows(sizes: { submissions: number; channels: number; bigChannelFactor: number }): number {
  return Math.round((sizes.submissions / sizes.channels) * sizes.bigChannelFactor);
}

/** The id and agent of the g-th generated submission, as the SQL above makes them. */
export function generatedSubmission(g: number, agents: number): { id: string; agentId: string } {
  return {
    id: `sub_${createHash('md5').update(String(g)).digest('hex').slice(0, 22)}`,
    agentId: `ag_${1 + (g % agents)}`,
  };
}
