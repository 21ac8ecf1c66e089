import { DomainError } from '@framedesk/domain';

const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const ADAPTER_UNAVAILABLE = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'DatabaseDoesNotExist']);
const NETWORK_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** A dependency we need to accept work (PostgreSQL above all) is down: 503, nothing was created. */
export function asUnavailable(error: unknown): DomainError | null {
  const e = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } }; cause?: { code?: unknown } } | null;
  if (!e || typeof e !== 'object') return null;
  const kind = e.meta?.driverAdapterError?.cause?.kind;
  const down =
    (typeof e.code === 'string' && (PRISMA_UNAVAILABLE.has(e.code) || NETWORK_UNAVAILABLE.has(e.code))) ||
    (typeof kind === 'string' && ADAPTER_UNAVAILABLE.has(kind)) ||
    (typeof e.cause?.code === 'string' && NETWORK_UNAVAILABLE.has(e.cause.code));
  return down
    ? new DomainError('service_unavailable', 'A dependency of the service is unavailable; nothing was created. Retry with the same Idempotency-Key.', {
        headers: { 'Retry-After': '5' },
        cause: error,
      })
    : null;
}
