// Helpers for tests of reads from replicas on the Patroni engine (libs/testing/src/engines/patroni.ts).
import pg from 'pg';
import type { TestDatabase } from './database';
import { type ClusterDatabase, patroniMembers, patroniQuery, patroniUrls } from './engines/patroni';
import { waitUntil } from './stack';

const HOLD_TABLE = 'replay_hold';

/**
 * Runs `work` while the replicas replay nothing written after it started, then lets them catch
 * up: their view lags the primary's by exactly what `work` wrote, so which server answered a read
 * is plain to see. No member is stopped, paused or switched over.
 *
 * How: each replica holds a lock on a table of `database` in an open transaction, and the primary
 * takes that table's ACCESS EXCLUSIVE lock; a replica's replay waits at that lock (a recovery
 * conflict) until the holding transaction ends, for up to `max_standby_streaming_delay` (30 s).
 * `pg_wal_replay_pause()` is no way to do it: Patroni resumes paused replay on its next loop (1 s).
 */
export async function whileReplicasBehind<T>(cluster: ClusterDatabase, work: () => Promise<T>): Promise<T> {
  await patroniQuery(cluster.url, `CREATE TABLE IF NOT EXISTS ${HOLD_TABLE} ()`);
  const urls = (await patroniMembers())
    .filter((m) => m.role !== 'leader')
    .map((m) => patroniUrls(cluster.name).node(m.name));
  const holders: pg.Client[] = [];
  try {
    for (const url of urls) {
      await waitUntil(`${HOLD_TABLE} on the replica ${url}`, async () => {
        const [row] = await patroniQuery<{ t: string | null }>(url, `SELECT to_regclass('${HOLD_TABLE}')::text AS t`);
        return row?.t !== null && row?.t !== undefined;
      });
      const holder = new pg.Client({ connectionString: url });
      holder.on('error', () => undefined);
      holders.push(holder);
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query(`SELECT * FROM ${HOLD_TABLE}`);
    }
    await patroniQuery(cluster.url, `BEGIN; LOCK TABLE ${HOLD_TABLE} IN ACCESS EXCLUSIVE MODE; COMMIT`);
    return await work();
  } finally {
    await Promise.all(holders.map((h) => h.end().catch(() => undefined)));
  }
}

/** A cluster database as the harnesses take a test database (its URL is the read-write port). */
export function clusterTestDatabase(cluster: ClusterDatabase): TestDatabase {
  return {
    name: cluster.name,
    url: cluster.url,
    query: <Row>(sql: string, params?: unknown[]) => patroniQuery<Row>(cluster.url, sql, params),
    drop: () => cluster.drop(),
  };
}
