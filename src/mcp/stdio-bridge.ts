// `docwright mcp`: the MCP server over stdio, for assistants that start a local command (Claude
// Desktop, Claude Code, Cursor, VS Code). It holds no tools of its own: it connects to a running
// docwright server's /mcp endpoint with the key (the SDK's streamable HTTP client) and passes
// tools/list and tools/call through. So the tools, their schemas, the key's scope and project,
// and every check are the server's, in one place; the command needs no database and works from
// any machine that reaches the server, as the other client commands do (docs/mcp.md says why).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import { MCP_PATH } from './mcp-path.ts';
import { MAX_WAIT_SECONDS } from './tool-schemas.ts';

/** A call with no progress for this long is given up (create_job reports progress every 5 s). */
const IDLE_TIMEOUT_MS = 120_000;
/** The longest any call may take: create_job's longest wait, and a minute for the rest. */
const TOTAL_TIMEOUT_MS = (MAX_WAIT_SECONDS + 60) * 1000;

export interface StdioBridgeOptions {
  /** The docwright server, e.g. http://127.0.0.1:3000 (its /mcp endpoint is used). */
  baseUrl: string;
  apiKey: string;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** The server refused or could not be reached; the message never carries the key. */
export class BridgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeError';
  }
}

/** Connects to the server, then serves stdio until stdin ends. Resolves when it has closed. */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const endpoint = new URL(
    MCP_PATH.slice(1),
    options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
  );
  const remote = new Client({ name: 'docwright-mcp-stdio', version: packageJson.version });
  try {
    await remote.connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } },
      }),
    );
  } catch (error) {
    throw new BridgeError(
      `cannot use the docwright MCP endpoint at ${endpoint.href}: ${remoteFailure(error)}`,
    );
  }

  const server = new Server(
    {
      name: 'docwright',
      title: 'docwright',
      version: remote.getServerVersion()?.version ?? packageJson.version,
    },
    {
      capabilities: { tools: { listChanged: false } },
      ...(remote.getInstructions() ? { instructions: remote.getInstructions()! } : {}),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) =>
    passThrough(() => remote.listTools(request.params, { signal: extra.signal })),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = extra._meta?.progressToken;
    return passThrough(() =>
      // request(), not callTool(): the result goes on unchanged, and the assistant's client
      // checks it against the output schema it listed.
      remote.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, {
        signal: extra.signal,
        timeout: IDLE_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: TOTAL_TIMEOUT_MS,
        onprogress: (progress) => {
          if (progressToken === undefined) return;
          void extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, ...progress },
          });
        },
      }),
    );
  });

  const stdin = options.stdin ?? process.stdin;
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(
    new StdioServerTransport(
      stdin as NodeJS.ReadStream & typeof process.stdin,
      (options.stdout ?? process.stdout) as NodeJS.WriteStream & typeof process.stdout,
    ),
  );
  // The assistant closing its end of the pipe is the signal to stop.
  stdin.once('end', () => void server.close());
  await closed;
  await remote.close();
}

/** What the server answered, passed on; a failure to reach it becomes an MCP error. */
async function passThrough<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof McpError) throw error;
    throw new McpError(ErrorCode.InternalError, `docwright server: ${remoteFailure(error)}`);
  }
}

/** The server's error body (error, code, request id) when it sent one, else the failure's words. */
export function remoteFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const json = message.indexOf('{');
  if (json >= 0) {
    try {
      const body = JSON.parse(message.slice(json)) as { error?: string; code?: string; requestId?: string };
      if (typeof body.error === 'string') {
        return `${body.error} (code ${body.code ?? 'unknown'}${body.requestId ? `, request id ${body.requestId}` : ''})`;
      }
    } catch {}
  }
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${message}${cause}`;
}
