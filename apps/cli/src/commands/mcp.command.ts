import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Command, UsageError } from '../command';

const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/**
 * The stdio form of the API's MCP server, for hosts that start a local process: every
 * tools/list and tools/call is forwarded to `<api-url>/mcp` with the agent's key, so the tools,
 * their checks and their errors are the remote server's own.
 */
export const mcpCommands: Record<string, Command> = {
  mcp: {
    usage:
      'mcp [--api-url URL] [--api-key KEY]   (stdio MCP server for AI hosts, forwarding to a running API; ' +
      `the key may come from FRAMEDESK_API_KEY, the URL from FRAMEDESK_BASE_URL, default ${DEFAULT_API_URL})`,
    positionals: 0,
    options: { 'api-url': { type: 'string' }, 'api-key': { type: 'string' } },
    async run({ values, io }) {
      const apiKey = (values['api-key'] as string | undefined) ?? io.env['FRAMEDESK_API_KEY'];
      if (!apiKey) throw new UsageError('an API key is required: --api-key KEY or FRAMEDESK_API_KEY');
      const apiUrl = (values['api-url'] as string | undefined) ?? io.env['FRAMEDESK_BASE_URL'] ?? DEFAULT_API_URL;
      if (!/^https?:\/\/[^/]/.test(apiUrl)) throw new UsageError(`--api-url ${apiUrl}: expected an http(s) address`);

      const remote = new Client({ name: 'framedesk-cli-mcp', version: '1.0.0' });
      const endpoint = new URL('/mcp', apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`);
      try {
        await remote.connect(
          new StreamableHTTPClientTransport(endpoint, {
            requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
          }),
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`cannot open ${endpoint.href}: ${message.split('\n')[0]}`);
      }

      const server = new Server(
        { name: 'framedesk', version: '1.0.0' },
        {
          capabilities: { tools: {} },
          instructions: `Framedesk at ${apiUrl}: submit frames and follow them through review.`,
        },
      );
      server.setRequestHandler(ListToolsRequestSchema, (request) => remote.listTools(request.params));
      server.setRequestHandler(CallToolRequestSchema, (request) => remote.callTool(request.params));
      const closed = new Promise<void>((resolve) => (server.onclose = resolve));
      // The host ending our stdin ends the session (the transport itself only listens for data).
      io.stdin.once('end', () => void server.close());
      await server.connect(new StdioServerTransport(io.stdin as Readable));
      io.err(`framedesk mcp: serving stdio, forwarding to ${endpoint.href}`);
      await closed;
      await remote.close();
      return 0;
    },
  },
};
