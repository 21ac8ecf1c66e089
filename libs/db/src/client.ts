import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { readReplica, type ReplicaStatus } from './read-replica';
import { retryingReads } from './read-retry';
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
  /**
   * How long one query may wait for its answer before its connection is given up (default 30 s):
   * a half-open socket (a primary that vanished without a FIN) would otherwise hang a job for
   * as long as TCP keeps retransmitting (pg's `query_timeout`; the pool then drops that connection).
   */
  readonly queryTimeoutMs?: number;
  /** Replicas for reads that may be slightly stale (`DATABASE_READ_URL`); unset: every read on `url`. */
  readonly readUrl?: string;
  /** A replica further behind than this (bytes of WAL to replay) is not read from (default 16 MiB). */
  readonly maxReadLagBytes?: number;
}

/**
 * The pool drops broken connections (a primary that changes, docs/operations.md): TCP keepalive
 * finds a dead peer of an idle connection, a connect timeout gives up on a node that accepts
 * nothing (HAProxy accepts the TCP connection itself while no primary is up), and a query timeout
 * gives up on a connection whose peer no longer answers. Every one of these errors is classified
 * as "PostgreSQL unreachable" (unreachable.ts): the API answers 503, a worker holds its job.
 */
export function poolOptions(options: DatabaseOptions) {
  const queryTimeoutMs = options.queryTimeoutMs ?? 60_000;
  return {
    connectionString: options.url,
    max: options.poolSize ?? 10,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    query_timeout: queryTimeoutMs,
  };
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
  /**
   * Repositories for reads that may be slightly stale (queue and timeline pages, Team view, audit
   * export, simulate, agent feedback, ops): a replica's while one is set and keeps up, else the
   * primary's (read-replica.ts). A read that must see a write just made uses `repos`.
   */
  readRepos(): Repositories;
  /** Where `readRepos` reads now; `probe` asks the replica afresh (`doctor`). */
  replicaStatus(options?: { probe?: boolean }): Promise<ReplicaStatus>;
  /** Resolves when PostgreSQL answers as a primary that takes writes (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function createDatabase(options: DatabaseOptions): Database {
  const adapter = new PrismaPg(poolOptions(options));
  const prisma = new PrismaClient({ adapter });
  // Repositories read through the retrying client; transactions use the plain one (no repeats inside).
  const repos = createRepositories(prisma.$extends(retryingReads) as unknown as PrismaClient);
  const replica = options.readUrl
    ? readReplica(prisma, repos, {
        url: options.readUrl,
        maxLagBytes: options.maxReadLagBytes ?? 16 * 1024 * 1024,
        pool: (url) => poolOptions({ ...options, url }),
      })
    : null;
  const transaction: Database['transaction'] = (work) =>
    prisma.$transaction((tx) => work(createRepositories(tx)), { timeout: 15_000, maxWait: 10_000 });
  return {
    repos,
    transaction,
    transition: (request, options) => {
      const before = options?.before;
      if (!before) return repos.submissions.transition(request);
      return transaction(async (tx) => tx.submissions.transition((await before(tx)) ?? request));
    },
    readRepos: () => replica?.repos() ?? repos,
    replicaStatus: async ({ probe = false } = {}) =>
      replica
        ? probe
          ? replica.probe()
          : replica.status()
        : { configured: false, inUse: false, role: null, lagBytes: null, fallbacks: 0 },
    ping: async () => {
      // Ready means a primary that takes writes: a demoted node (a failover under way, the proxy
      // not moved yet) still answers SELECT 1 but refuses every write with 25006.
      const [row] = await prisma.$queryRaw<{ writable: boolean }[]>`
        SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable`;
      if (!row?.writable)
        throw Object.assign(new Error('PostgreSQL is read-only here (no primary serves writes)'), { code: '25006' });
    },
    close: async () => {
      await replica?.close();
      await prisma.$disconnect();
    },
  };
}
