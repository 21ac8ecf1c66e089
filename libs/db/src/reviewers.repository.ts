import type { DbClient } from './prisma';

export interface ReviewerRow {
  readonly id: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly name: string | null;
  readonly createdAt: Date;
  readonly disabledAt: Date | null;
}

export function reviewersRepository(db: DbClient) {
  return {
    create: (input: { id: string; email: string; passwordHash: string; name: string | null }): Promise<ReviewerRow> =>
      db.reviewer.create({ data: input }),
    findByEmail: (email: string): Promise<ReviewerRow | null> => db.reviewer.findUnique({ where: { email } }),
    findById: (id: string): Promise<ReviewerRow | null> => db.reviewer.findUnique({ where: { id } }),
  };
}
