import type { ReviewerRole } from '@framedesk/domain';
import type { DbClient } from './prisma';

export interface ReviewerRow {
  readonly id: string;
  readonly email: string;
  /** Null: the account signs in only through SSO, or was invited and has not chosen one yet. */
  readonly passwordHash: string | null;
  readonly name: string | null;
  readonly role: ReviewerRole;
  readonly createdAt: Date;
  readonly disabledAt: Date | null;
  readonly lastSeenAt: Date | null;
}

export interface NewReviewer {
  readonly id: string;
  readonly email: string;
  readonly passwordHash: string | null;
  readonly name: string | null;
  readonly role: ReviewerRole;
  /** Channels (ids) the reviewer is a member of from the start. */
  readonly channelIds?: readonly string[];
}

export function reviewersRepository(db: DbClient) {
  return {
    create: ({ channelIds = [], ...input }: NewReviewer): Promise<ReviewerRow> =>
      db.reviewer.create({
        data: { ...input, channels: { create: channelIds.map((channelId) => ({ channelId })) } },
      }),
    findByEmail: (email: string): Promise<ReviewerRow | null> => db.reviewer.findUnique({ where: { email } }),
    findById: (id: string): Promise<ReviewerRow | null> => db.reviewer.findUnique({ where: { id } }),
  };
}
