import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { createRepositories, type Repositories } from './repositories';
import type { TransitionRequest, TransitionResult } from './submissions.repository';

export interface TransitionOptions {
  /**
   * Work committed in the transaction of the status change, before it. When what it read decides
   * the change (a review policy reads the history), it returns the request to run instead.
   */
  readonly before?: (repos: Repositories) => Promise<TransitionRequest | void>;
}

export interface DatabaseOptions {
  readonly url: string;
  readonly poolSize?: number;
}

/** The one handle on PostgreSQL a process holds: repositories, transactions, health. */
export interface Database {
  readonly repos: Repositories;
  /** Runs `work` in one transaction; every repository it is handed writes inside it. */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /**
   * A status change through the status machine, compare-and-set, with its event: one statement.
   * `options.before` is work to commit in the same transaction, before the status changes (the
   * image pipeline's variant rows and fingerprint); it commits even when the transition loses, and
   * it may replace the request (TransitionOptions). The result's row says where it moved.
   */
  transition(request: TransitionRequest, options?: TransitionOptions): Promise<TransitionResult>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function createDatabase(options: DatabaseOptions): Database {
  const adapter = new PrismaPg({ connectionString: options.url, max: options.poolSize ?? 10 });
  const prisma = new PrismaClient({ adapter });
  const transaction: Database['transaction'] = (work) =>
    prisma.$transaction((tx) => work(createRepositories(tx)), { timeout: 15_000, maxWait: 10_000 });
  const repos = createRepositories(prisma);
  return {
    repos,
    transaction,
    transition: (request, options) => {
      const before = options?.before;
      if (!before) return repos.submissions.transition(request);
      return transaction(async (tx) => tx.submissions.transition((await before(tx)) ?? request));
    },
    ping: async () => {
      await prisma.$queryRaw`SELECT 1`;
    },
    close: () => prisma.$disconnect(),
  };
}
