import { randomUUID } from 'node:crypto';
import type { DbClient } from './prisma';

export interface ChannelRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: Date;
}

export function channelsRepository(db: DbClient) {
  return {
    /** Creates the channel, or returns the existing one of that slug. */
    async ensure(slug: string, name?: string): Promise<{ channel: ChannelRow; created: boolean }> {
      const existing = await db.channel.findUnique({ where: { slug } });
      if (existing) return { channel: existing, created: false };
      const channel = await db.channel.upsert({
        where: { slug },
        create: { id: randomUUID(), slug, name: name ?? slug },
        update: {},
      });
      return { channel, created: true };
    },
    findBySlug: (slug: string): Promise<ChannelRow | null> => db.channel.findUnique({ where: { slug } }),
    list: (): Promise<ChannelRow[]> => db.channel.findMany({ orderBy: { slug: 'asc' } }),
  };
}
