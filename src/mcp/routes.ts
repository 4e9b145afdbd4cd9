// POST /mcp: the MCP server over streamable HTTP, on the same server and port as the API, with
// the same keys. Every request is authenticated like a /v1 or /v2 request (Authorization: Bearer
// dw_...; a read key gets the read tools, an admin key all; an ingest key none, so it is refused
// with 403), before the SDK sees it: an unauthenticated initialize gets the API's 401 error body.
//
// Stateless: each POST gets a server and transport of its own, built for its key, and nothing is
// kept between requests, so any process behind a load balancer can answer any request. GET (a
// stream for server-initiated messages) and DELETE (ending a session) have no meaning without
// sessions and answer 405, as the MCP transport specification asks.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { httpErrors } from '../errors/request-errors.ts';
import { authenticate } from '../http/auth.ts';
import type { App, AppContext } from '../http/context.ts';
import { errorResponses } from '../http/openapi.ts';
import { type AgentCatalog, curatedAgentCatalog } from '../modules/analytics/index.ts';
import { mcpErrors } from './errors.ts';
import { MCP_PATH } from './mcp-path.ts';
import { createMcpServer, type McpDependencies } from './server.ts';

export interface McpRouteOptions {
  /** Operator and category of each agent in get_ai_agents (the exports' catalog). */
  agentCatalog?: AgentCatalog;
}

export function registerMcpRoutes(app: App, context: AppContext, options: McpRouteOptions = {}): void {
  const deps: McpDependencies = {
    db: context.db,
    config: context.config,
    agentCatalog: options.agentCatalog ?? curatedAgentCatalog(),
    ...(context.onJobQueued ? { onJobQueued: context.onJobQueued } : {}),
    logFault: (error, requestId) => app.log.error({ err: error, reqId: requestId }, 'MCP tool call failed'),
  };
  const authenticated = async (request: FastifyRequest) => authenticate(context.db, request);

  app.post(
    MCP_PATH,
    {
      config: { access: 'read' },
      onRequest: authenticated,
      schema: {
        tags: ['MCP'],
        security: [{ bearerAuth: [] }],
        summary: 'MCP server (streamable HTTP)',
        description:
          'The Model Context Protocol endpoint for AI assistants (Claude, Cursor, VS Code): JSON-RPC messages in, answers as JSON or server-sent events, as the MCP streamable HTTP transport specifies. The tools act on the key’s project; a read key gets the read tools only. Stateless: no Mcp-Session-Id. See docs/mcp.md.',
        body: Type.Unknown({ description: 'A JSON-RPC message (or batch) of MCP.' }),
        response: {
          200: {
            description: 'The JSON-RPC answer, as application/json or text/event-stream.',
            content: {
              'application/json': { schema: Type.Unknown() },
              'text/event-stream': { schema: Type.String() },
            },
          },
          202: { description: 'A notification or response was accepted.', type: 'null' },
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      if (request.body === undefined) {
        throw httpErrors.invalid_json('The body is empty; send a JSON-RPC message of MCP.');
      }
      const key = request.apiKey!;
      const server = createMcpServer(deps, {
        scope: key.scope,
        projectId: key.projectId,
        requestId: request.id,
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      reply.hijack();
      reply.raw.setHeader('x-request-id', request.id);
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );

  const noSessions = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw mcpErrors.mcp_method_not_allowed(
      `${request.method} ${MCP_PATH} is not offered: this MCP server keeps no sessions. Send each JSON-RPC message with POST.`,
    );
  };
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      config: { access: 'read' },
      onRequest: authenticated,
      schema: { hide: true },
      handler: noSessions,
    });
  }
}
