import { randomUUID } from 'node:crypto';
import type { DbClient } from './prisma';

export interface AgentRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly disabledAt: Date | null;
}

export function agentsRepository(db: DbClient) {
  return {
    findBySlug: (slug: string): Promise<AgentRow | null> => db.agent.findUnique({ where: { slug } }),
    findById: (id: string): Promise<AgentRow | null> => db.agent.findUnique({ where: { id } }),
    create: (slug: string, name?: string): Promise<AgentRow> =>
      db.agent.create({ data: { id: randomUUID(), slug, name: name ?? slug } }),
    async allowChannels(agentId: string, channelIds: readonly string[]): Promise<void> {
      await db.agentChannel.createMany({
        data: channelIds.map((channelId) => ({ agentId, channelId })),
        skipDuplicates: true,
      });
    },
    async isAllowedOnChannel(agentId: string, channelId: string): Promise<boolean> {
      return (await db.agentChannel.count({ where: { agentId, channelId } })) > 0;
    },
    async channelSlugs(agentId: string): Promise<string[]> {
      const rows = await db.agentChannel.findMany({ where: { agentId }, include: { channel: true } });
      return rows.map((row) => row.channel.slug).sort();
    },
  };
}
