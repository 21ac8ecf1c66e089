import type { SubmissionStatus } from '@framedesk/domain';
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import type { SubmissionWithSlugs } from './submissions.repository';

/** A submission as the agent API shows it: its columns, both slugs, its upload's id, its delivered media. */
export type SubmissionResourceRow = SubmissionWithSlugs & {
  readonly upload: { readonly id: string } | null;
  readonly media: readonly { readonly kind: string; readonly name: string; readonly key: string }[];
};

/** Every column of `submissions s` under its `SubmissionRow` name. */
export const SUBMISSION_COLUMNS = Prisma.sql`
         s.id, s.status::text AS "status", s.media_type::text AS "mediaType", s.agent_id AS "agentId",
         s.channel_id AS "channelId", s.date, s.metadata, s.title, s.visibility::text AS "visibility",
         s.failure_code AS "failureCode", s.failure_message AS "failureMessage",
         s.review_decision::text AS "reviewDecision", s.review_reason AS "reviewReason",
         s.reviewer_id AS "reviewerId", s.reviewed_at AS "reviewedAt", s.claimed_by AS "claimedBy",
         s.claimed_until AS "claimedUntil", s.width, s.height, s.duration_ms AS "durationMs",
         s.created_at AS "createdAt", s.updated_at AS "updatedAt"`;

// One statement per read: slugs by join, the upload by a unique-index lookup (videos only), the
// delivered media folded into one JSON array. Prisma's `include` sends each relation separately.
const SELECT_RESOURCE = Prisma.sql`
  SELECT ${SUBMISSION_COLUMNS},
         a.slug AS "agentSlug", c.slug AS "channelSlug", u.id AS "uploadId",
         COALESCE((SELECT json_agg(json_build_object('kind', m.kind, 'name', m.name, 'key', m.key) ORDER BY m.name)
                     FROM media_objects m
                    WHERE m.submission_id = s.id AND m.kind IN ('variant', 'poster', 'external')), '[]'::json) AS "media"
    FROM submissions s
    JOIN agents a ON a.id = s.agent_id
    JOIN channels c ON c.id = s.channel_id
    LEFT JOIN media_uploads u ON s.media_type = 'video' AND u.submission_id = s.id`;

type RawResource = Omit<SubmissionResourceRow, 'agent' | 'channel' | 'upload'> & {
  readonly agentSlug: string;
  readonly channelSlug: string;
  readonly uploadId: string | null;
};

function toResource(raw: RawResource): SubmissionResourceRow {
  const { agentSlug, channelSlug, uploadId, ...row } = raw;
  return {
    ...row,
    agent: { slug: agentSlug },
    channel: { slug: channelSlug },
    upload: uploadId ? { id: uploadId } : null,
  };
}

export interface ResourceListQuery {
  readonly agentId: string;
  /** Unknown slugs match nothing. */
  readonly channelSlug?: string;
  readonly status?: SubmissionStatus;
  readonly after?: { readonly createdAt: Date; readonly id: string };
  readonly limit: number;
}

export function submissionResources(db: DbClient) {
  return {
    /** The agent API resource of one submission; another agent's is null. One statement. */
    async findForAgent(id: string, agentId: string): Promise<SubmissionResourceRow | null> {
      const rows = await db.$queryRaw<RawResource[]>`${SELECT_RESOURCE} WHERE s.id = ${id} AND s.agent_id = ${agentId}`;
      return rows[0] ? toResource(rows[0]) : null;
    },

    /** An agent's own submissions, newest first, keyset-paginated on (created_at, id). One statement. */
    async listForAgent(query: ResourceListQuery): Promise<SubmissionResourceRow[]> {
      const where = [Prisma.sql`s.agent_id = ${query.agentId}`];
      if (query.channelSlug !== undefined)
        where.push(Prisma.sql`s.channel_id = (SELECT id FROM channels WHERE slug = ${query.channelSlug})`);
      if (query.status) where.push(Prisma.sql`s.status = ${query.status}::"SubmissionStatus"`);
      if (query.after)
        where.push(Prisma.sql`(s.created_at, s.id) < (${query.after.createdAt}::timestamptz, ${query.after.id})`);
      const rows = await db.$queryRaw<RawResource[]>`${SELECT_RESOURCE}
        WHERE ${Prisma.join(where, ' AND ')}
        ORDER BY s.created_at DESC, s.id DESC
        LIMIT ${query.limit}`;
      return rows.map(toResource);
    },
  };
}
