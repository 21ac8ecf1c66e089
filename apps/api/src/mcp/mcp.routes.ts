import express, { type RequestHandler, Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { agentChannelsService } from '@framedesk/submissions';
import type { ApiDependencies } from '../dependencies';
import { authenticateAgent, callerOf, rateLimitAgent } from '../http/authenticate';
import { keyConcurrency } from '../http/key-concurrency';
import { methodNotAllowed } from '../http/problem';
import { IDEMPOTENCY_LOCK_MS } from '../routes/agent-api.routes';
import { toolSchemas } from './schemas';
import { countBatch, ENVELOPE_BYTES, valueBudget } from './limits';
import { createMcpServer } from './tools';

/** A call's arguments besides a base64 image: the frame's metadata (REST's limit) and the envelope. */
export function mcpCallBytes(config: ApiDependencies['config']): number {
  return config.api.metadata_max_bytes + ENVELOPE_BYTES;
}

/** The largest JSON body /mcp reads: a base64 PNG of media.multipart_max_bytes plus the rest of its call. */
export function mcpBodyLimit(config: ApiDependencies['config']): number {
  return Math.ceil(config.media.multipart_max_bytes / 3) * 4 + mcpCallBytes(config);
}

/**
 * The remote MCP server (Streamable HTTP, stateless): the agent's Bearer key and rate limit are
 * checked before any MCP exchange, then a fresh server and transport answer this one request, so
 * any API instance can serve any request. Tools call the same services as the REST routes.
 */
export function mcpRoutes(
  deps: ApiDependencies,
  perKey: RequestHandler = keyConcurrency(deps.settings.MCP_CONCURRENT_PER_KEY),
): Router {
  const router = Router();
  const channels = agentChannelsService({ db: deps.db, config: deps.config });
  const schemas = toolSchemas(deps.config);
  const idempotency = {
    lockMs: IDEMPOTENCY_LOCK_MS,
    retentionMs: deps.settings.IDEMPOTENCY_RETENTION_HOURS * 3_600_000,
  };

  const { MCP_BATCH_MAX, MCP_LIST_MAX_BYTES } = deps.settings;

  router.use(
    authenticateAgent(deps.apiKeys, deps.invalidKeys, deps.logger),
    rateLimitAgent(deps.rateLimiter, deps.logger),
  );
  // Issue 40: every bound is checked before the work it bounds. Requests at once per key before
  // the body is read; the number of JSON values before it is parsed; the batch's size and its calls
  // against the rate limit before any runs; each call's argument bytes before they are validated.
  router.post(
    '/',
    perKey,
    express.json({ limit: mcpBodyLimit(deps.config), verify: valueBudget(mcpCallBytes(deps.config), MCP_BATCH_MAX) }),
    countBatch(deps.rateLimiter, MCP_BATCH_MAX, deps.logger),
    async (req, res) => {
      const caller = callerOf(res);
      const requestId = res.locals['requestId'] as string | undefined;
      const server = createMcpServer(
        {
          db: deps.db,
          config: deps.config,
          submissions: deps.submissions,
          channels,
          validators: deps.validators,
          idempotency,
          schemas,
          listMaxBytes: MCP_LIST_MAX_BYTES,
          onUnexpected: (error, tool) =>
            deps.logger.error(
              { err: error, request_id: requestId, tool, api_key_id: caller.apiKeyId },
              'mcp tool failed',
            ),
        },
        caller,
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  router.all('/', methodNotAllowed(['POST']));
  return router;
}
