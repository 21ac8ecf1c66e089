import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { createRepositories, type Repositories } from './repositories';

/**
 * Reads that may be slightly stale (the review queue and timeline pages, the Team view, exports,
 * ops pages) can be served by a streaming replica (`DATABASE_READ_URL`: HAProxy's read-only port,
 * a managed reader endpoint), taking that load off the primary. A replica is used only while it
 * keeps up: every second its replay position is compared with the primary's write position, and
 * a replica behind by more than `maxLagBytes` (or not answering) is set aside; reads then go to
 * the primary until it catches up, and each such read is counted (`fallbacks`).
 *
 * Reads that must see a write just made never come here: they use `Database.repos` (the primary).
 */
export interface ReadReplica {
  /** Repositories on the replica while it keeps up, else on the primary. */
  repos(): Repositories;
  status(): ReplicaStatus;
  /** The replica's role and lag, asked now (`doctor`). */
  probe(): Promise<ReplicaStatus>;
  close(): Promise<void>;
}

export interface ReplicaStatus {
  readonly configured: boolean;
  /** True while reads go to the replica. */
  readonly inUse: boolean;
  /** `replica` when the read URL reaches a server in recovery; `primary` when it reaches a primary. */
  readonly role: 'replica' | 'primary' | 'unreachable' | null;
  /** Bytes of WAL the replica has yet to replay, or null when unknown. */
  readonly lagBytes: number | null;
  /** Reads sent to the primary because the replica was behind or away. */
  readonly fallbacks: number;
}

export interface ReadReplicaOptions {
  readonly url: string;
  readonly maxLagBytes: number;
  readonly pool: (url: string) => ConstructorParameters<typeof PrismaPg>[0];
}

export function readReplica(
  primary: PrismaClient,
  primaryRepos: Repositories,
  options: ReadReplicaOptions,
): ReadReplica {
  const client = new PrismaClient({ adapter: new PrismaPg(options.pool(options.url)) });
  const replicaRepos = withFreshQueue(createRepositories(client), primaryRepos);
  let state: Omit<ReplicaStatus, 'fallbacks' | 'configured'> = { inUse: false, role: null, lagBytes: null };
  let fallbacks = 0;

  const probe = async (): Promise<ReplicaStatus> => {
    try {
      const [written] = await primary.$queryRaw<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
      const [row] = await client.$queryRaw<{ in_recovery: boolean; lag: number | null }[]>`
        SELECT pg_is_in_recovery() AS in_recovery,
          CASE WHEN pg_is_in_recovery()
            THEN pg_wal_lsn_diff(${written?.lsn ?? '0/0'}::pg_lsn, pg_last_wal_replay_lsn())::float8
            ELSE 0 END AS lag`;
      const lagBytes = row?.lag === null || row?.lag === undefined ? null : Math.max(0, Number(row.lag));
      state = {
        role: row?.in_recovery ? 'replica' : 'primary',
        lagBytes,
        inUse: lagBytes !== null && lagBytes <= options.maxLagBytes,
      };
    } catch {
      state = { role: 'unreachable', lagBytes: null, inUse: false };
    }
    return { ...state, configured: true, fallbacks };
  };

  let probing = false;
  const timer = setInterval(() => {
    if (probing) return;
    probing = true;
    void probe().finally(() => (probing = false));
  }, 1000);
  timer.unref();
  void probe();

  return {
    repos() {
      if (state.inUse) return replicaRepos;
      fallbacks++;
      return primaryRepos;
    },
    status: () => ({ ...state, configured: true, fallbacks }),
    probe,
    async close() {
      clearInterval(timer);
      await client.$disconnect();
    },
  };
}

/**
 * The review queue read from a replica, checked against the primary: a replica may not have
 * replayed a decision made a moment ago (synchronous replication means the standby flushed the
 * WAL, not that it replayed it), and a decided frame must not come back on the next page. The
 * check is one primary-key lookup of the page's ids, far cheaper than the queue's own read.
 */
function withFreshQueue(replica: Repositories, primary: Repositories): Repositories {
  return {
    ...replica,
    review: {
      ...replica.review,
      queue: async (filter) => {
        // Dropping decided rows must not end the paging early: read on past them (a few batches).
        const kept: Awaited<ReturnType<Repositories['review']['queue']>> = [];
        let after = filter.after;
        for (let batch = 0; batch < 4 && kept.length < filter.limit; batch++) {
          const rows = await replica.review.queue({ ...filter, ...(after ? { after } : {}) });
          const waiting = await primary.submissions.stillInReview(rows.map((r) => r.id));
          kept.push(...rows.filter((r) => waiting.has(r.id)));
          const last = rows.at(-1);
          if (rows.length < filter.limit || !last) break;
          after = { createdAt: last.createdAt, id: last.id, dueAt: last.dueAt, priority: last.reviewPriority ?? 0 };
        }
        return kept.slice(0, filter.limit);
      },
    },
  };
}
