import type { RequestHandler } from 'express';
import { DomainError } from '@framedesk/domain';
import { callerOf } from './authenticate';

/**
 * At most `max` requests of one API key at once in this process, over every route it guards (the
 * /mcp endpoint and the agent's feedback record share one count: MCP_CONCURRENT_PER_KEY), counted
 * from when the guard runs (before /mcp reads its body) until the answer is sent or the client
 * goes: 429 `rate_limited` with Retry-After beyond. One per app (`app.ts`), so both doors see it.
 */
export function keyConcurrency(max: number): RequestHandler {
  const active = new Map<string, number>();
  return (_req, res, next) => {
    const key = callerOf(res).apiKeyId;
    const busy = active.get(key) ?? 0;
    if (busy >= max)
      throw new DomainError(
        'rate_limited',
        `At most ${max} requests at once per API key to /mcp and the feedback record (MCP_CONCURRENT_PER_KEY); retry after 1 s.`,
        { headers: { 'Retry-After': '1' } },
      );
    active.set(key, busy + 1);
    res.once('close', () => {
      const left = (active.get(key) ?? 1) - 1;
      if (left > 0) active.set(key, left);
      else active.delete(key);
    });
    next();
  };
}
