import type { Settings } from '@framedesk/config';
import pg from 'pg';
import { type CheckResult, fail, firstLine, ok, warn } from './check-result';

const hostOf = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}`;
  } catch {
    return 'an unparsable URL';
  }
};

async function ask<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows[0]!;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The role of each database URL (DATABASE_URL must reach a primary; DATABASE_READ_URL a replica)
 * and the replica's lag behind the primary, in WAL bytes, against DATABASE_READ_MAX_LAG_BYTES.
 */
export async function checkDatabaseRoles(
  settings: Pick<Settings, 'DATABASE_URL' | 'DATABASE_READ_URL' | 'DATABASE_READ_MAX_LAG_BYTES'>,
): Promise<CheckResult[]> {
  let lsn: string;
  try {
    const primary = await ask<{ r: boolean; lsn: string | null }>(
      settings.DATABASE_URL,
      'SELECT pg_is_in_recovery() AS r, CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_lsn()::text END AS lsn',
    );
    if (primary.r || !primary.lsn)
      return [
        fail(
          'database role',
          `DATABASE_URL (${hostOf(settings.DATABASE_URL)}) reaches a server in recovery, not a primary`,
          'point DATABASE_URL at the primary (the proxy that follows it, or the writer endpoint)',
        ),
      ];
    lsn = primary.lsn;
  } catch {
    return []; // unreachable: the postgresql check says so
  }
  const results = [ok('database role', `DATABASE_URL (${hostOf(settings.DATABASE_URL)}): primary`)];
  const readUrl = settings.DATABASE_READ_URL;
  if (!readUrl) return results;
  try {
    const replica = await ask<{ r: boolean; lag: number }>(
      readUrl,
      `SELECT pg_is_in_recovery() AS r,
         CASE WHEN pg_is_in_recovery() THEN pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::float8 ELSE 0 END AS lag`,
      [lsn],
    );
    const lag = Math.max(0, Math.round(Number(replica.lag)));
    const where = `DATABASE_READ_URL (${hostOf(readUrl)})`;
    if (!replica.r) results.push(warn('read replica', `${where} reaches a primary: reads are not taken off it`));
    else if (lag > settings.DATABASE_READ_MAX_LAG_BYTES)
      results.push(
        warn(
          'read replica',
          `${where}: replica ${lag} bytes behind (> ${settings.DATABASE_READ_MAX_LAG_BYTES}): reads fall back to the primary`,
        ),
      );
    else results.push(ok('read replica', `${where}: replica, ${lag} bytes behind`));
  } catch (error) {
    results.push(
      warn('read replica', `DATABASE_READ_URL not reachable (${firstLine(error)}): reads fall back to the primary`),
    );
  }
  return results;
}
