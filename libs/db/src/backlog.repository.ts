import type { DbClient } from './prisma';

export function backlogRepository(db: DbClient) {
  return {
    /** The agent's images not yet processed (received or media_processing): its share of the image queue. */
    imageBacklog: (agentId: string): Promise<number> =>
      db.submission.count({ where: { agentId, mediaType: 'image', status: { in: ['received', 'media_processing'] } } }),
  };
}
