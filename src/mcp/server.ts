// The docwright MCP server: for each request, the tools its caller's key scope allows, acting on
// the key's project (one caller per server, or many: one-call-transport.ts). Built on the SDK's
// low-level Server rather than McpServer because the tools' schemas are JSON Schema from the
// contract (TypeBox), not zod; arguments are checked here with the same rules as the HTTP API's
// bodies (tool-arguments.ts).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { Database } from '../db/database.ts';
import { httpErrors } from '../errors/request-errors.ts';
import type { AgentCatalog } from '../modules/analytics/index.ts';
import type { JobServiceConfig } from '../modules/jobs/index.ts';
import type { KeyScope } from '../modules/keys/index.ts';
import type { McpTool, ToolCallContext } from './tool.ts';
import { checkArguments } from './tool-arguments.ts';
import { errorResult, successResult } from './tool-results.ts';
import { toToolSchema } from './tool-schemas.ts';
import { TOOLS, TOOLS_BY_NAME } from './tools/index.ts';

/** What every MCP server of this process shares. */
export interface McpDependencies {
  db: Database;
  config: JobServiceConfig;
  agentCatalog: AgentCatalog;
  onJobQueued?: (jobId: string) => void;
  /** Faults that are not the caller's (logged in full; the caller sees only the request id). */
  logFault: (error: unknown, requestId: string) => void;
}

/** Who is calling: from their API key. */
export interface McpCaller {
  scope: KeyScope;
  projectId: string;
  /** Quoted in error answers and logs: the HTTP request's id. */
  requestId: string;
}

const INSTRUCTIONS =
  "docwright runs AI agent jobs that edit this project's docs repository and open pull requests, and reports who reads the docs: human readers or AI agents. Every tool acts on the project of the API key. A job is asynchronous: create_job answers with status active (or waits with waitSeconds); get_job shows the outcome and prLink. A read key sees only the read tools.";

function mayCall(scope: KeyScope, tool: McpTool): boolean {
  return scope === 'admin' || (scope === 'read' && tool.access === 'read');
}

/** tools/list's entries, converted once: one list per scope. */
function listing(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toToolSchema(tool.input),
    outputSchema: toToolSchema(tool.output),
    annotations: { title: tool.title, ...tool.annotations },
  };
}
const LISTINGS = new Map(TOOLS.map((tool) => [tool, listing(tool)]));
const LISTED: Record<KeyScope, Tool[]> = {
  admin: TOOLS.filter((t) => mayCall('admin', t)).map((t) => LISTINGS.get(t)!),
  read: TOOLS.filter((t) => mayCall('read', t)).map((t) => LISTINGS.get(t)!),
  ingest: [],
};

/**
 * The SDK's validator for client answers (elicitation, which docwright does not use). By default
 * every Server builds its own, a new Ajv instance: most of an MCP request's cost when a server is
 * built per request, so one is shared.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

/**
 * Who made a request, by the request's id: for a server that serves many callers (the one-call
 * transport's). Undefined once the request is answered or cancelled.
 */
export type CallerOf = (requestId: RequestId) => McpCaller | undefined;

/** A server for one caller, or for many when given how to find each request's caller. */
export function createMcpServer(deps: McpDependencies, callers: McpCaller | CallerOf): Server {
  const callerOf = (requestId: RequestId): McpCaller => {
    const caller = typeof callers === 'function' ? callers(requestId) : callers;
    // Only a request cancelled before its handler ran has no caller; its answer is not sent.
    if (caller === undefined) throw new McpError(ErrorCode.ConnectionClosed, 'The request was cancelled.');
    return caller;
  };
  const server = new Server(
    { name: 'docwright', title: 'docwright', version: packageJson.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: SHARED_VALIDATOR,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: LISTED[callerOf(extra.requestId).scope],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const caller = callerOf(extra.requestId);
    const { name, arguments: given } = request.params;
    const tool = TOOLS_BY_NAME.get(name);
    // An unknown name is a protocol error (MCP's rule); everything after it is the tool's.
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}"; tools/list names the tools.`);
    }
    try {
      if (!mayCall(caller.scope, tool)) {
        throw httpErrors.insufficient_scope(
          `The tool ${name} needs a key with scope admin; this key has scope ${caller.scope}.`,
        );
      }
      const args = checkArguments(tool, given);
      const progressToken = extra._meta?.progressToken;
      let lastProgress = -1;
      const context: ToolCallContext = {
        db: deps.db,
        config: deps.config,
        agentCatalog: deps.agentCatalog,
        projectId: caller.projectId,
        ...(deps.onJobQueued ? { onJobQueued: deps.onJobQueued } : {}),
        signal: extra.signal,
        async progress(progress, total, message) {
          if (progressToken === undefined || progress <= lastProgress) return;
          lastProgress = progress;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, ...(total === undefined ? {} : { total }), message },
          });
        },
      };
      return successResult(await tool.run(context, args as never));
    } catch (error) {
      return errorResult(error, caller.requestId, (fault) => deps.logFault(fault, caller.requestId));
    }
  });
  return server;
}
