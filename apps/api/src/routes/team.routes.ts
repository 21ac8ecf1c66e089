import { Router } from 'express';
import type { Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import { teamStats } from '@framedesk/review';
import { concurrencyLimit } from '../http/concurrency-limit';
import { requireAdmin, reviewerOf } from '../http/reviewer-session';

/** `GET /review/team`: the Team view's numbers per reviewer over a window (admins only). */
export function teamRoutes(deps: { db: Database; limits: Pick<Settings, 'TEAM_VIEW_CONCURRENT'> }): Router {
  const team = teamStats({ db: deps.db });
  const router = Router();
  // One read per reviewer over the window's events: a few at once per process.
  const reads = concurrencyLimit(deps.limits.TEAM_VIEW_CONCURRENT, 'Team view reads (TEAM_VIEW_CONCURRENT)');
  router.get('/team', requireAdmin, reads, async (req, res) => {
    res.json(await team.read(req.query as Record<string, unknown>, reviewerOf(res)));
  });
  return router;
}
