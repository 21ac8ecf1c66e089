import { errorChain, markRaisedBy } from '@framedesk/domain';
import { Prisma } from './generated/prisma/client.ts';
import { databaseUnreachableReason } from './unreachable';

/** Reads that are safe to repeat: nothing they do changes a row. */
const READS = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
]);

/** Back-off between the tries of a read (then the error goes up: the API answers 503). */
export const READ_RETRY_DELAYS_MS = [100, 300, 900] as const;

// What a model query throws came from PostgreSQL's client, socket errors included: marked so.
const unreachable = (error: unknown): boolean =>
  errorChain(error).some((e) => databaseUnreachableReason(markRaisedBy(e, 'PostgreSQL')) !== null);

/**
 * A model read outside a transaction that meets a database away for a moment (a connection cut
 * by a failover, a primary not yet promoted) is tried again with back-off, about 1.3 s in all,
 * before its error goes up. Writes are never repeated here: a COMMIT that errored may have
 * committed, so only a compare-and-set or an upsert may repeat one, and they do so themselves.
 */
export const retryingReads = Prisma.defineExtension({
  name: 'framedesk-read-retry',
  query: {
    $allModels: {
      async $allOperations({ operation, args, query }) {
        if (!READS.has(operation)) return query(args);
        for (let attempt = 0; ; attempt++) {
          try {
            return await query(args);
          } catch (error) {
            const delay = READ_RETRY_DELAYS_MS[attempt];
            if (delay === undefined || !unreachable(error)) throw error;
            await new Promise((resolve) => setTimeout(resolve, delay));
          }
        }
      },
    },
  },
});
