// Round trips to PostgreSQL and Redis counted around a piece of work, by wrapping every
// `pg.Client#query` and ioredis `sendCommand` of this process (docs/performance.md). Counts, not
// timings: a new statement or Redis call on a hot path fails a test that pins them, on any machine.
import { Redis } from 'ioredis';
import pg from 'pg';

export interface RoundTrips {
  /** Each statement's first three words, in the order sent. */
  readonly sql: string[];
  /** Each statement's whole text, in the same order (to tell what a statement reads). */
  readonly statements: string[];
  /**
   * Each Redis command's name, in the order sent. A Lua script is one call, named with its key
   * count (`evalsha/11`, BullMQ's moveToActive; `evalsha/14`, its moveToFinished).
   */
  readonly redis: string[];
}

/** Which calls count: `skipSql(client)` / `skipRedis(connection, command)` leave some out. */
export interface RoundTripFilter {
  readonly skipSql?: (client: pg.Client) => boolean;
  readonly skipRedis?: (connection: Redis, command: string) => boolean;
}

/** Statements and Redis commands sent while `work` runs. */
export async function countRoundTrips(work: () => Promise<void>, filter: RoundTripFilter = {}): Promise<RoundTrips> {
  const sql: string[] = [];
  const statements: string[] = [];
  const redis: string[] = [];
  const query = pg.Client.prototype.query;
  const sendCommand = Redis.prototype.sendCommand;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (!filter.skipSql?.(this)) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      sql.push((text ?? '?').trim().split(/\s+/).slice(0, 3).join(' '));
      statements.push(text ?? '?');
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<typeof sendCommand>) {
    const command = args[0];
    const name = command.name.toLowerCase();
    const label = name === 'evalsha' || name === 'eval' ? `${name}/${String(command.args[1])}` : name;
    if (!filter.skipRedis?.(this, name)) redis.push(label);
    return sendCommand.apply(this, args);
  };
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
    Redis.prototype.sendCommand = sendCommand;
  }
  return { sql, statements, redis };
}

/**
 * PostgreSQL transactions among counted statements: each BEGIN … COMMIT/ROLLBACK is one, and
 * so is every statement sent outside one (PostgreSQL commits it on its own).
 */
export function transactionsOf(sql: readonly string[]): number {
  let count = 0;
  let open = false;
  for (const statement of sql) {
    const word = statement.split(' ')[0]!.toUpperCase();
    if (word === 'BEGIN') {
      open = true;
      count++;
    } else if (word === 'COMMIT' || word === 'ROLLBACK') open = false;
    else if (!open) count++;
  }
  return count;
}
