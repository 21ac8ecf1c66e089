import { VideoToolUnavailableError } from '@framedesk/media';
import { UnrecoverableError } from '@framedesk/queues';

/**
 * Who is at fault when a job throws:
 * - `media`: the media's own fault, already recorded on the submission (`failed` with a code);
 * - `server`: this server lacks something (a tool, storage, PostgreSQL, Redis, disk space): the
 *   job is retried with a capped back-off for as long as that lasts, the submission never fails;
 * - `unknown`: anything else. Nothing proves the media at fault, so a job that carries a
 *   submission treats it as a server fault (held with back-off, listed on the operations page
 *   with `reason`); the submission never ends `failed` for it. Other jobs are retried, then fail.
 */
export type JobErrorClass =
  | { readonly kind: 'media' }
  | { readonly kind: 'server'; readonly reason: string }
  | { readonly kind: 'unknown'; readonly reason: string };

const ERRNO_REASONS: Readonly<Record<string, string>> = {
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

/** Prisma's codes for a database it cannot reach or talk to (not a query's own problem). */
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const S3_UNAVAILABLE = new Set([
  'TimeoutError',
  'NetworkingError',
  'ServiceUnavailable',
  'SlowDown',
  'InternalError',
  'RequestTimeout',
]);
const REDIS_UNREACHABLE = /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit)/;

type ErrorLike = Error & {
  code?: unknown;
  errno?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  $metadata?: { httpStatusCode?: number };
};

/** The error, its causes and the members of an AggregateError (a failed connect to ::1 and 127.0.0.1). */
function* chain(error: unknown, depth = 0): Generator<ErrorLike> {
  if (!(error instanceof Error) || depth > 5) return;
  yield error as ErrorLike;
  if (error instanceof AggregateError) for (const inner of error.errors) yield* chain(inner, depth + 1);
  yield* chain(error.cause, depth + 1);
}

function serverReason(e: ErrorLike): string | null {
  if (e instanceof VideoToolUnavailableError) return `${e.message}; install ffmpeg or set ${toolSetting(e.tool)}`;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && ERRNO_REASONS[code]) {
    const where = e.address ? ` (${String(e.address)}${e.port ? `:${String(e.port)}` : ''})` : '';
    return `${ERRNO_REASONS[code]}${where} [${code}]`;
  }
  if (code && PRISMA_UNREACHABLE.has(code)) return `PostgreSQL unreachable [${code}]`;
  if (e.name === 'PrismaClientInitializationError') return 'PostgreSQL unreachable';
  if (e.name === 'MaxRetriesPerRequestError' || REDIS_UNREACHABLE.test(e.message)) return 'Redis unreachable';
  if (S3_UNAVAILABLE.has(e.name) || (e.$metadata?.httpStatusCode ?? 0) >= 500) return `storage unavailable (${e.name})`;
  return null;
}

const toolSetting = (tool: 'ffprobe' | 'ffmpeg') => (tool === 'ffprobe' ? 'FFPROBE_PATH' : 'FFMPEG_PATH');

export function classifyJobError(error: unknown): JobErrorClass {
  if (error instanceof UnrecoverableError) return { kind: 'media' };
  for (const e of chain(error)) {
    const reason = serverReason(e);
    if (reason) return { kind: 'server', reason };
  }
  return { kind: 'unknown', reason: unclassifiedReason(error) };
}

/** What the operations page shows for an error nothing explains: its name and first line, short. */
function unclassifiedReason(error: unknown): string {
  const e = error instanceof Error ? error : new Error(String(error));
  const line = (e.message.split('\n')[0] ?? '').trim().slice(0, 160);
  return `unclassified error (${e.name}${line ? `: ${line}` : ''})`;
}

/** Back-off between tries of a job held up by a server fault: doubling from `baseMs`, never above `maxMs`. */
export function serverFaultDelayMs(tries: number, baseMs = 5_000, maxMs = 300_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(tries - 1, 30)));
}
