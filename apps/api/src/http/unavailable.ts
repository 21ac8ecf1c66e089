import { databaseUnreachableReason } from '@framedesk/db';
import { DomainError, errorChain, systemFaultReason } from '@framedesk/domain';
import { redisUnreachableReason } from '@framedesk/queues';
import { storageUnavailableReason } from '@framedesk/storage';

const DEPENDENCY_DOWN = [
  databaseUnreachableReason,
  storageUnavailableReason,
  redisUnreachableReason,
  systemFaultReason,
];

/** A dependency we need to accept work (PostgreSQL, storage, Redis, disk) is down or full: 503, nothing was created. */
export function asUnavailable(error: unknown): DomainError | null {
  return errorChain(error).some((e) => DEPENDENCY_DOWN.some((reason) => reason(e) !== null))
    ? new DomainError(
        'service_unavailable',
        'A dependency of the service is unavailable; nothing was created. Retry with the same Idempotency-Key.',
        {
          headers: { 'Retry-After': '5' },
          cause: error,
        },
      )
    : null;
}
