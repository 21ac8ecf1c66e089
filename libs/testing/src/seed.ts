import pg from 'pg';
import type { TestDatabase } from './database';

export interface SeedWaitingOptions {
  readonly agentSlug: string;
  readonly channelSlug: string;
  readonly count: number;
  /** Titles are `<prefix> 00001` … in queue order (oldest first). */
  readonly titlePrefix?: string;
  /** YYYYMMDD. */
  readonly date?: string;
}

/**
 * Many `needs_review` image frames (no media objects) in one INSERT … SELECT, for tests of the
 * queue at volume: ten thousand rows in well under a second instead of ten thousand uploads.
 * The agent and channel must exist. Ids are well-formed (`sub_Seed000…n`). Oldest first: frame n
 * was created n seconds after frame 1.
 */
export async function seedWaitingFrames(database: TestDatabase, options: SeedWaitingOptions): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO submissions (id, status, media_type, agent_id, channel_id, date, title, visibility, created_at, updated_at)
       SELECT 'sub_Seed' || lpad(n::text, 18, '0'), 'needs_review', 'image',
              (SELECT id FROM agents WHERE slug = $1), (SELECT id FROM channels WHERE slug = $2),
              $3, $4 || ' ' || lpad(n::text, 5, '0'), 'promotion_eligible',
              now() - interval '1 day' + n * interval '1 second', now()
       FROM generate_series(1, $5::int) AS n`,
      [
        options.agentSlug,
        options.channelSlug,
        options.date ?? '20260301',
        options.titlePrefix ?? 'Seeded',
        options.count,
      ],
    );
  } finally {
    await client.end();
  }
}
