// One classification of a cut or refused connection for every "is a dependency down?" predicate
// (libs/db, libs/queues, systemFaultReason). A socket error says only its errno code: whose
// connection it was is known to the client that raised it, which marks it (`markRaisedBy`), or
// shows in the error's own class and properties. Never in its message or a port number.

/** The dependencies whose connection errors are told apart. */
export type Dependency = 'PostgreSQL' | 'Redis';

const RAISED_BY = Symbol.for('framedesk.raised-by');

/**
 * Marks `error` as raised by the client of `dependency` (the lib that owns that client calls it
 * on every error the client hands out). The first mark stands; anything not an object is left.
 */
export function markRaisedBy<T>(error: T, dependency: Dependency): T {
  if (typeof error === 'object' && error !== null && !(RAISED_BY in error) && Object.isExtensible(error))
    Object.defineProperty(error, RAISED_BY, { value: dependency, enumerable: false, configurable: true });
  return error;
}

/**
 * Which dependency's client raised this one error: its mark, else what its class says —
 * node-postgres's server errors (a `severity` and a five-character SQLSTATE), Prisma's errors and
 * its driver adapter's (their names, the adapter's `kind` beside an `originalCode`), ioredis's
 * replies (`ReplyError`) and its give-up (`MaxRetriesPerRequestError`). Null when nothing says:
 * a bare socket error from Node.
 */
export function raisedBy(error: object): Dependency | null {
  const e = error as { [RAISED_BY]?: unknown; name?: unknown; code?: unknown; severity?: unknown; kind?: unknown };
  const mark = e[RAISED_BY];
  if (mark === 'PostgreSQL' || mark === 'Redis') return mark;
  if (typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return 'PostgreSQL';
  if (typeof e.name === 'string' && (e.name.startsWith('PrismaClient') || e.name === 'DriverAdapterError'))
    return 'PostgreSQL';
  if (typeof e.kind === 'string' && 'originalCode' in error) return 'PostgreSQL';
  if (e.name === 'ReplyError' || e.name === 'MaxRetriesPerRequestError') return 'Redis';
  return null;
}

/** Node's errno codes of a connection cut, refused or timed out, or of a peer out of reach. */
const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export interface ConnectionError {
  /** The errno code (`code`, or `originalCode` where a driver adapter keeps it). */
  readonly code: string;
  /** Whose connection it was (`raisedBy`); null when nothing says. */
  readonly dependency: Dependency | null;
}

/** This one error as a connection error: its errno code and whose connection it was; null if it is none. */
export function connectionError(error: object): ConnectionError | null {
  const e = error as { code?: unknown; originalCode?: unknown };
  const code = [e.code, e.originalCode].find((c): c is string => typeof c === 'string' && CONNECTION_CODES.has(c));
  return code ? { code, dependency: raisedBy(error) } : null;
}
