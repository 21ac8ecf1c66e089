import type { RequestHandler } from 'express';
import { DomainError } from '@framedesk/domain';

/** Seconds a refused client is asked to wait. */
export const BUSY_RETRY_SECONDS = 5;

/**
 * At most `max` requests of one kind at once in this process (a policy simulation, the Team
 * view: reads that cost seconds of PostgreSQL): counted until the answer is sent or the client
 * goes away; beyond, 503 `busy` with Retry-After. `what` names the setting in the detail.
 */
export function concurrencyLimit(max: number, what: string): RequestHandler {
  let active = 0;
  return (_req, res, next) => {
    if (active >= max)
      throw new DomainError(
        'busy',
        `At most ${max} ${what} at once on this API process; retry after ${BUSY_RETRY_SECONDS} s.`,
        {
          headers: { 'Retry-After': String(BUSY_RETRY_SECONDS) },
        },
      );
    active++;
    res.once('close', () => {
      active--;
    });
    next();
  };
}

/**
 * An AbortSignal that fires when the client goes away before its answer is sent: the work it
 * asked for stops (a simulation between its batches).
 */
export function clientGone(res: Parameters<RequestHandler>[1]): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}
