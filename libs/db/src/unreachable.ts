import { connectionError } from '@framedesk/domain';

// When PostgreSQL is away (down, restarting, out of connections), every layer sees a different
// error: Prisma's P-codes, its driver adapter's kinds, the server's SQLSTATE, node-postgres's
// bare messages. This is the one list of them.

const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const ADAPTER_UNREACHABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseDoesNotExist',
]);
// SQLSTATEs of a server going away: connection exceptions (08…), operator intervention (57P0…),
// and 25006 read_only_sql_transaction: a write reached a primary that was just demoted (a
// failover; the proxy has not moved yet), so no primary serves writes here for a moment.
const SQLSTATE_UNREACHABLE = /^(08\d{3}|57P0[1-4]|25006)$/;
// node-postgres reports a dropped socket with a message and no code; so does Prisma at times.
// A timeout on a dead socket: pg's connect timeout and query read timeout.
const DROPPED =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|terminating connection|database system is (starting up|shutting down|in recovery mode)|Client has encountered a connection error|Can't reach database server/i;

/** Why this one error (not its causes: see `errorChain`) means PostgreSQL is unreachable, or null. */
export function databaseUnreachableReason(error: object): string | null {
  const e = error as {
    name?: unknown;
    code?: unknown;
    errorCode?: unknown;
    originalCode?: unknown;
    kind?: unknown;
    message?: unknown;
  };
  const code = [e.code, e.errorCode, e.originalCode].find(
    (c): c is string => typeof c === 'string' && (PRISMA_UNREACHABLE.has(c) || SQLSTATE_UNREACHABLE.test(c)),
  );
  if (code) return `PostgreSQL unreachable [${code}]`;
  // A socket error is PostgreSQL's only when its client says so (libs/domain connection-errors).
  const cut = connectionError(error);
  if (cut?.dependency === 'PostgreSQL') return `PostgreSQL unreachable [${cut.code}]`;
  if (typeof e.kind === 'string' && ADAPTER_UNREACHABLE.has(e.kind)) return `PostgreSQL unreachable [${e.kind}]`;
  if (e.name === 'PrismaClientInitializationError') return 'PostgreSQL unreachable';
  if (typeof e.message === 'string' && DROPPED.test(e.message)) return 'PostgreSQL unreachable';
  return null;
}
