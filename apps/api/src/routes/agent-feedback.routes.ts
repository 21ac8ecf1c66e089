import { type RequestHandler, Router } from 'express';
import type { Database } from '@framedesk/db';
import { agentFeedback } from '@framedesk/submissions';
import { callerOf } from '../http/authenticate';

/**
 * GET /v1/agents/{agent_slug}/feedback: the key's own agent's record (any other slug is 404),
 * within the key's requests at once (`perKey`, shared with /mcp: MCP_CONCURRENT_PER_KEY).
 */
export function agentFeedbackRoutes(deps: { db: Database; perKey: RequestHandler }): Router {
  const router = Router();
  router.get('/v1/agents/:slug/feedback', deps.perKey, async (req, res) => {
    const caller = callerOf(res);
    res.json(await agentFeedback(deps.db, caller, String(req.params['slug']), req.query as Record<string, unknown>));
  });
  return router;
}
