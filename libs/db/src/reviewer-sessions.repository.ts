import type { DbClient } from './prisma';

export interface ReviewerSessionRow {
  /** SHA-256 (hex) of the cookie token; the token itself is never stored. */
  readonly id: string;
  readonly reviewerId: string;
  readonly csrfToken: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly expiresAt: Date;
}

export interface ReviewerSessionWithReviewer extends ReviewerSessionRow {
  readonly reviewer: {
    readonly id: string;
    readonly email: string;
    readonly name: string | null;
    readonly disabledAt: Date | null;
  };
}

export function reviewerSessionsRepository(db: DbClient) {
  return {
    create: (input: {
      id: string;
      reviewerId: string;
      csrfToken: string;
      expiresAt: Date;
    }): Promise<ReviewerSessionRow> => db.reviewerSession.create({ data: input }),
    /** A session that has not expired at `now`, with its reviewer. */
    findLive: (id: string, now: Date): Promise<ReviewerSessionWithReviewer | null> =>
      db.reviewerSession.findFirst({
        where: { id, expiresAt: { gt: now } },
        include: { reviewer: { select: { id: true, email: true, name: true, disabledAt: true } } },
      }),
    async touch(id: string, at: Date): Promise<void> {
      await db.reviewerSession.updateMany({ where: { id }, data: { lastSeenAt: at } });
    },
    async delete(id: string): Promise<void> {
      await db.reviewerSession.deleteMany({ where: { id } });
    },
    async deleteExpired(now: Date): Promise<number> {
      const { count } = await db.reviewerSession.deleteMany({ where: { expiresAt: { lte: now } } });
      return count;
    },
  };
}
