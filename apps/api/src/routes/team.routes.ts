import { Router } from 'express';
import type { Database } from '@framedesk/db';
import { teamStats } from '@framedesk/review';
import { requireAdmin, reviewerOf } from '../http/reviewer-session';

/** `GET /review/team`: the Team view's numbers per reviewer over a window (admins only). */
export function teamRoutes(deps: { db: Database }): Router {
  const team = teamStats({ db: deps.db });
  const router = Router();
  router.get('/team', requireAdmin, async (req, res) => {
    res.json(await team.read(req.query as Record<string, unknown>, reviewerOf(res)));
  });
  return router;
}
