import express, { Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { agentChannelsService } from '@framedesk/submissions';
import type { ApiDependencies } from '../dependencies';
import { authenticateAgent, callerOf, rateLimitAgent } from '../http/authenticate';
import { methodNotAllowed } from '../http/problem';
import { IDEMPOTENCY_LOCK_MS } from '../routes/agent-api.routes';
import { toolSchemas } from './schemas';
import { createMcpServer } from './tools';

// JSON-RPC envelope and the tool's other arguments around the base64 image.
const ENVELOPE_BYTES = 64 * 1024;

/** The largest JSON body /mcp reads: a base64 PNG of media.multipart_max_bytes plus its metadata. */
export function mcpBodyLimit(config: ApiDependencies['config']): number {
  return Math.ceil(config.media.multipart_max_bytes / 3) * 4 + config.api.metadata_max_bytes + ENVELOPE_BYTES;
}

/**
 * The remote MCP server (Streamable HTTP, stateless): the agent's Bearer key and rate limit are
 * checked before any MCP exchange, then a fresh server and transport answer this one request, so
 * any API instance can serve any request. Tools call the same services as the REST routes.
 */
export function mcpRoutes(deps: ApiDependencies): Router {
  const router = Router();
  const channels = agentChannelsService({ db: deps.db, config: deps.config });
  const schemas = toolSchemas(deps.config);
  const idempotency = {
    lockMs: IDEMPOTENCY_LOCK_MS,
    retentionMs: deps.settings.IDEMPOTENCY_RETENTION_HOURS * 3_600_000,
  };

  router.use(authenticateAgent(deps.apiKeys), rateLimitAgent(deps.rateLimiter, deps.logger));
  router.post('/', express.json({ limit: mcpBodyLimit(deps.config) }), async (req, res) => {
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
  });
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  router.all('/', methodNotAllowed(['POST']));
  return router;
}
