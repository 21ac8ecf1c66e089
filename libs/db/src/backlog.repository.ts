import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';
import { IN_PROCESSING } from './transition-sql';

/**
 * Backlogs are counted up to this many: beyond it, an agent's next frames share one priority
 * (first come, first served among them), still behind every agent with a shorter backlog. The
 * cap keeps the count's cost bounded however far an agent floods.
 */
export const BACKLOG_COUNT_CAP = 10_000;

/** The agent's images not yet processed (received or media_processing), capped; for SQL. */
export const imageBacklogSql = (agentId: string) => Prisma.sql`
  (SELECT count(*)::int FROM (
     SELECT 1 FROM submissions
      WHERE agent_id = ${agentId} AND media_type = 'image' AND status IN ${IN_PROCESSING}
      LIMIT ${BACKLOG_COUNT_CAP}) backlog)`;

export function backlogRepository(db: DbClient) {
  return {
    /** The agent's images not yet processed: its share of the image queue (index-only, capped). */
    async imageBacklog(agentId: string): Promise<number> {
      const rows = await db.$queryRaw<{ n: number }[]>`SELECT ${imageBacklogSql(agentId)} AS n`;
      return rows[0]?.n ?? 0;
    },
  };
}
