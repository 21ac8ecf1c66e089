import { connectionError } from './connection-errors';

/**
 * An error as a list: the error, its causes, the members of an AggregateError (a failed connect
 * to ::1 and to 127.0.0.1) and the driver adapter's error Prisma keeps in `meta`, outermost first.
 * The "is a dependency down?" predicates of libs/db, libs/storage and libs/queues look at each.
 */
export function errorChain(error: unknown, limit = 10): object[] {
  const seen: object[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.length < limit) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.includes(e)) continue;
    seen.push(e);
    const like = e as { cause?: unknown; errors?: unknown; meta?: { driverAdapterError?: unknown } };
    queue.push(like.cause, like.meta?.driverAdapterError);
    if (e instanceof AggregateError && Array.isArray(like.errors)) queue.push(...(like.errors as unknown[]));
  }
  return seen;
}

const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'file system is read-only',
  EACCES: 'permission denied',
  EMFILE: 'too many open files',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name resolution failed',
  EPIPE: 'connection closed',
};

/**
 * What a system error (errno code) says about this server: a network it cannot reach or a disk it
 * cannot write. Work that met one may succeed later, unchanged. Null for any other error, and for
 * a connection error whose dependency is known (`connectionError`): that dependency's predicate
 * names it (`databaseUnreachableReason`, `redisUnreachableReason`).
 */
export function systemFaultReason(error: object): string | null {
  const e = error as { code?: unknown; address?: unknown; port?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (!code || !SYSTEM_ERRORS[code] || connectionError(error)?.dependency) return null;
  const where = e.address ? ` (${String(e.address)}${e.port ? `:${String(e.port)}` : ''})` : '';
  return `${SYSTEM_ERRORS[code]}${where} [${code}]`;
}
