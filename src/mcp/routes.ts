// POST /mcp: the MCP server over streamable HTTP, on the same server and port as the API, with
// the same keys. Every request is authenticated like a /v1 or /v2 request (Authorization: Bearer
// dw_...; a read key gets the read tools, an admin key all; an ingest key none, so it is refused
// with 403), before the SDK sees it: an unauthenticated initialize gets the API's 401 error body.
//
// Stateless: nothing of a request is kept after its answer. A single ordinary request goes to one
// server shared by all callers (one-call-transport.ts: each request carries its caller); any other
// POST gets a server and the SDK's web-standard transport of its own, built for its key. So any
// process behind a load balancer can answer any request. GET (a stream for server-initiated
// messages) and DELETE (ending a session) have no meaning without sessions and answer 405, as the
// MCP transport specification asks.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppError } from '../errors/app-error.ts';
import { httpErrors } from '../errors/request-errors.ts';
import { authenticate } from '../http/auth.ts';
import type { App, AppContext } from '../http/context.ts';
import { errorResponses } from '../http/openapi.ts';
import { type AgentCatalog, curatedAgentCatalog } from '../modules/analytics/index.ts';
import { type ApiKeyChecker, checkKey } from '../modules/keys/index.ts';
import { mcpErrors } from './errors.ts';
import { MCP_PATH } from './mcp-path.ts';
import { OneCallTransport, oneCallRequest } from './one-call-transport.ts';
import { createMcpServer, type McpDependencies } from './server.ts';

export interface McpRouteOptions {
  /** Operator and category of each agent in get_ai_agents (the exports' catalog). */
  agentCatalog?: AgentCatalog;
  /** The app's API key checks (its cache); default: a statement per request. */
  keys?: ApiKeyChecker;
}

export function registerMcpRoutes(app: App, context: AppContext, options: McpRouteOptions = {}): void {
  const deps: McpDependencies = {
    db: context.db,
    config: context.config,
    agentCatalog: options.agentCatalog ?? curatedAgentCatalog(),
    ...(context.onJobQueued ? { onJobQueued: context.onJobQueued } : {}),
    logFault: (error, requestId) => app.log.error({ err: error, reqId: requestId }, 'MCP tool call failed'),
  };
  const keys = options.keys ?? { check: (presented: string) => checkKey(context.db, presented) };
  const authenticated = async (request: FastifyRequest) => authenticate(keys, request);
  // The server for single requests, shared by all callers (one-call-transport.ts): connected once.
  const oneCall = (async () => {
    const transport = new OneCallTransport();
    const server = createMcpServer(deps, (id) => transport.callerOf(id));
    await server.connect(transport);
    return { server, transport };
  })();
  app.addHook('onClose', async () => {
    await (await oneCall).server.close();
  });

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
      const caller = { scope: key.scope, projectId: key.projectId, requestId: request.id };
      // Closing a server whose answer is complete would only build the SDK's "connection closed"
      // error (a stack trace per request), so only a client gone before its answer cancels its call,
      // which aborts the tool (create_job's wait stops).
      const single = oneCallRequest(request.headers, request.body);
      if (single !== undefined) {
        const call = (await oneCall).transport.call(single, caller);
        reply.raw.on('close', () => {
          if (!reply.raw.writableFinished) call.cancel();
        });
        const answer = await call.answer;
        if (answer === undefined) return reply; // the client is gone
        return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(answer));
      }
      const server = createMcpServer(deps, caller);
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) void server.close();
      });
      // One JSON answer unless the client asked for progress (create_job's wait reports it), which
      // needs an event stream: a stream costs more per request, and most calls are quick reads.
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !asksForProgress(request.body),
      });
      await server.connect(transport);
      // The SDK's web-standard transport, given the body Fastify already parsed and checked and the
      // headers it reads: cheaper than its Node wrapper, which converts the whole request and
      // answer through @hono/node-server, and the answer goes out through Fastify's reply.
      const response = await transport.handleRequest(
        new Request(new URL(MCP_PATH, 'http://mcp.invalid'), {
          method: 'POST',
          headers: transportHeaders(request.headers),
        }),
        { parsedBody: request.body },
      );
      if (response.status >= 400) throw await transportRefusal(response);
      reply.code(response.status as 200 | 202);
      response.headers.forEach((value, name) => {
        reply.header(name, value);
      });
      if (response.body === null) return reply.send();
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        return reply.send(await response.text());
      }
      // An event stream: progress notifications, then the answer.
      return reply.send(Readable.fromWeb(response.body as NodeWebStream));
    },
  );

  /**
   * The transport's own refusals (a request that is not MCP over HTTP: wrong Accept or
   * Content-Type, not a JSON-RPC message, an unsupported protocol version) come as JSON-RPC error
   * bodies; they are answered in the API's error shape like every other 4xx, with their words.
   */
  async function transportRefusal(response: Response): Promise<AppError> {
    let message = `The MCP transport refused the request (HTTP ${response.status}).`;
    try {
      const body = (await response.json()) as { error?: { message?: string } };
      if (typeof body.error?.message === 'string') message = `MCP: ${body.error.message}.`;
    } catch {}
    if (response.status === 406) return mcpErrors.mcp_not_acceptable(message);
    if (response.status === 415) return httpErrors.unsupported_media_type(message);
    if (response.status === 413) return httpErrors.body_too_large(message);
    return mcpErrors.mcp_invalid_request(message);
  }

  /** The request headers the MCP transport reads (content negotiation, protocol version). */
  function transportHeaders(headers: IncomingHttpHeaders): Headers {
    const out = new Headers();
    for (const name of [
      'accept',
      'content-type',
      'mcp-protocol-version',
      'mcp-session-id',
      'last-event-id',
    ]) {
      const value = headers[name];
      if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    return out;
  }

  /** Whether a message of the body carries params._meta.progressToken. */
  function asksForProgress(body: unknown): boolean {
    const messages = Array.isArray(body) ? body : [body];
    return messages.some((m) => {
      const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
      return meta?.progressToken !== undefined;
    });
  }

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
