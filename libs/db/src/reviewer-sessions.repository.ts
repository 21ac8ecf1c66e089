import type { ReviewerRole } from '@framedesk/domain';
import { ACCESS_CHANGES_CHANNEL } from './access-changes';
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
    readonly role: ReviewerRole;
    readonly disabledAt: Date | null;
  };
}

export function reviewerSessionsRepository(db: DbClient) {
  return {
    /** A new session; its reviewer is seen now. */
    async create(input: { id: string; reviewerId: string; csrfToken: string; expiresAt: Date }) {
      const session: ReviewerSessionRow = await db.reviewerSession.create({ data: input });
      await db.reviewer.update({ where: { id: input.reviewerId }, data: { lastSeenAt: session.lastSeenAt } });
      return session;
    },
    /** A session that has not expired at `now`, with its reviewer. */
    findLive: (id: string, now: Date): Promise<ReviewerSessionWithReviewer | null> =>
      db.reviewerSession.findFirst({
        where: { id, expiresAt: { gt: now } },
        include: { reviewer: { select: { id: true, email: true, name: true, role: true, disabledAt: true } } },
      }),
    /** The session and its reviewer were seen at `at` (one statement). */
    async touch(id: string, at: Date): Promise<void> {
      await db.$executeRaw`
        WITH s AS (UPDATE reviewer_sessions SET last_seen_at = ${at} WHERE id = ${id} RETURNING reviewer_id)
        UPDATE reviewers SET last_seen_at = ${at} WHERE id IN (SELECT reviewer_id FROM s)`;
    },
    /** Ends a session; its reviewer's open event streams hear of it (they re-check their session). */
    async delete(id: string): Promise<void> {
      await db.$executeRaw`
        WITH d AS (DELETE FROM reviewer_sessions WHERE id = ${id} RETURNING reviewer_id)
        SELECT pg_notify(${ACCESS_CHANGES_CHANNEL}, reviewer_id) FROM d`;
    },
    async deleteExpired(now: Date): Promise<number> {
      const { count } = await db.reviewerSession.deleteMany({ where: { expiresAt: { lte: now } } });
      return count;
    },
  };
}
