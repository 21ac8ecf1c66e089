import type { RequestHandler } from 'express';
import { createWorkerStatusStore, workersOverview } from '@framedesk/queues';
import type { ApiDependencies } from '../dependencies';

/** `GET /review/ops/workers` (behind the reviewer session): who can work each queue, and what is held. */
export function opsWorkersHandler(deps: ApiDependencies): RequestHandler {
  const status = createWorkerStatusStore(deps.redis, deps.settings.REDIS_PREFIX);
  return async (_req, res) => {
    res.json(await workersOverview(deps.queues, status));
  };
}
