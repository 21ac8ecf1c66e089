import { randomUUID } from 'node:crypto';
import type { Visibility } from '@framedesk/domain';
import { imageBacklogSql } from './backlog.repository';
import type { DbClient } from './prisma';

/** Everything an accepted image frame writes, known before the one statement that writes it. */
export interface NewImageSubmission {
  readonly id: string;
  readonly agentId: string;
  readonly channelSlug: string;
  readonly date: string;
  readonly metadata: Record<string, unknown>;
  readonly title: string | null;
  readonly visibility: Visibility;
  readonly now: Date;
  readonly original: {
    readonly bucket: string;
    readonly key: string;
    readonly contentType: string;
    readonly byteSize: number;
    readonly sha256: string;
  };
  /** The completed idempotency record: the answer a retry with the same key replays. */
  readonly idempotency: {
    readonly apiKeyId: string;
    readonly key: string;
    readonly fingerprint: string;
    readonly status: number;
    readonly body: unknown;
    readonly expiresAt: Date;
  };
}

export function imageIngestRepository(db: DbClient) {
  return {
    /**
     * One statement, so one round trip and one implicit transaction: the completed idempotency
     * record, the submission, its first event and its original's media row, written only when the
     * agent may post to the channel and the key was never used (`ON CONFLICT DO NOTHING`). Returns
     * `created: false` when nothing was written; the caller then takes the general path (claim,
     * take-over of an abandoned key, replay, 403), which decides exactly as before. `backlog` is
     * the agent's unprocessed images with this one (its queue priority), read in the same statement.
     */
    async createAtOnce(input: NewImageSubmission): Promise<{ created: boolean; backlog: number }> {
      const { original: o, idempotency: i } = input;
      const rows = await db.$queryRaw<{ created: number; backlog: number }[]>`
        WITH allowed AS (
          SELECT c.id FROM channels c
            JOIN agent_channels ac ON ac.channel_id = c.id AND ac.agent_id = ${input.agentId}
           WHERE c.slug = ${input.channelSlug}
        ), claim AS (
          INSERT INTO idempotency_records
                 (api_key_id, key, fingerprint, state, response_status, response_body, locked_until, created_at, expires_at)
          SELECT ${i.apiKeyId}, ${i.key}, ${i.fingerprint}, 'completed', ${i.status}::int, ${JSON.stringify(i.body)}::jsonb,
                 ${input.now}::timestamptz, ${input.now}::timestamptz, ${i.expiresAt}::timestamptz
            FROM allowed
          ON CONFLICT DO NOTHING
          RETURNING 1
        ), submission AS (
          INSERT INTO submissions
                 (id, status, media_type, agent_id, channel_id, date, metadata, title, visibility, created_at, updated_at)
          SELECT ${input.id}, 'received', 'image', ${input.agentId}, allowed.id, ${input.date}, ${JSON.stringify(input.metadata)}::jsonb,
                 ${input.title}, ${input.visibility}::"Visibility", ${input.now}::timestamptz, ${input.now}::timestamptz
            FROM allowed
           WHERE EXISTS (SELECT 1 FROM claim)
          RETURNING id
        ), event AS (
          INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, actor_id, created_at)
          SELECT id, 'transition', NULL, 'received', 'agent', ${input.agentId}, ${input.now}::timestamptz FROM submission
        ), media AS (
          INSERT INTO media_objects (id, submission_id, kind, name, bucket, key, content_type, byte_size, sha256, created_at)
          SELECT ${randomUUID()}, id, 'original', 'original', ${o.bucket}, ${o.key}, ${o.contentType}, ${o.byteSize}::bigint,
                 ${o.sha256}, ${input.now}::timestamptz
            FROM submission
        )
        SELECT (SELECT count(*)::int FROM submission) AS created, ${imageBacklogSql(input.agentId)} + 1 AS backlog`;
      return { created: rows[0]?.created === 1, backlog: rows[0]?.backlog ?? 1 };
    },
  };
}
