import type { SubmissionStatus } from '@framedesk/domain';
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import { type JsonSubmissionRow, selectJsonRows, SUBMISSION_COLUMNS, withDates } from './submission-json';
import type { SubmissionWithSlugs } from './submission-rows';

/** A submission as the agent API shows it: its columns, both slugs, its upload's id, its delivered media. */
export type SubmissionResourceRow = SubmissionWithSlugs & {
  readonly upload: { readonly id: string } | null;
  readonly media: readonly { readonly kind: string; readonly name: string; readonly key: string }[];
};

// One statement per read: slugs by join, the upload by a unique-index lookup (videos only), the
// delivered media folded into one JSON array. Prisma's `include` sends each relation separately.
const selectResources = (where: Prisma.Sql[], orderBy: Prisma.Sql, limit: number) => Prisma.sql`
  SELECT ${SUBMISSION_COLUMNS}, row_number() OVER (ORDER BY ${orderBy}) AS "position",
         a.slug AS "agentSlug", c.slug AS "channelSlug", u.id AS "uploadId",
         COALESCE((SELECT json_agg(json_build_object('kind', m.kind, 'name', m.name, 'key', m.key) ORDER BY m.name)
                     FROM media_objects m
                    WHERE m.submission_id = s.id AND m.kind IN ('variant', 'poster', 'external')), '[]'::json) AS "media"
    FROM submissions s
    JOIN agents a ON a.id = s.agent_id
    JOIN channels c ON c.id = s.channel_id
    LEFT JOIN media_uploads u ON s.media_type = 'video' AND u.submission_id = s.id
   WHERE ${Prisma.join(where, ' AND ')}
   ORDER BY ${orderBy}
   LIMIT ${limit}`;

type RawResource = JsonSubmissionRow & {
  readonly media: SubmissionResourceRow['media'];
  readonly agentSlug: string;
  readonly channelSlug: string;
  readonly uploadId: string | null;
  readonly position: number;
};

function toResource(raw: RawResource): SubmissionResourceRow {
  const { agentSlug, channelSlug, uploadId, position: _position, ...row } = raw;
  return {
    ...withDates(row),
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
      const [row] = await selectJsonRows<RawResource>(
        db,
        selectResources([Prisma.sql`s.id = ${id}`, Prisma.sql`s.agent_id = ${agentId}`], Prisma.sql`s.id`, 1),
      );
      return row ? toResource(row) : null;
    },

    /** An agent's own submissions, newest first, keyset-paginated on (created_at, id). One statement. */
    async listForAgent(query: ResourceListQuery): Promise<SubmissionResourceRow[]> {
      const where = [Prisma.sql`s.agent_id = ${query.agentId}`];
      if (query.channelSlug !== undefined)
        where.push(Prisma.sql`s.channel_id = (SELECT id FROM channels WHERE slug = ${query.channelSlug})`);
      if (query.status) where.push(Prisma.sql`s.status = ${query.status}::"SubmissionStatus"`);
      if (query.after)
        where.push(Prisma.sql`(s.created_at, s.id) < (${query.after.createdAt}::timestamptz, ${query.after.id})`);
      const rows = await selectJsonRows<RawResource>(
        db,
        selectResources(where, Prisma.sql`s.created_at DESC, s.id DESC`, query.limit),
      );
      return rows.map(toResource);
    },
  };
}
