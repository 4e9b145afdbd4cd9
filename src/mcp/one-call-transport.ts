// The transport of every POST /mcp that carries one ordinary request: a single JSON-RPC request
// (tools/call, tools/list or ping; no progress token) with headers the SDK's streamable HTTP
// transport would accept. All such requests go to one SDK Server, shared by all callers, which
// answers them as on any transport (its JSON-RPC checks, the handlers), each request carrying its
// caller. What is left out is a Server built per request, and the web-standard transport's
// wrapping: a web Request built from Fastify's request, and a web Response built around the answer
// and read back as text, which cost more than the rest of the MCP layer together (profiled:
// docs/mcp.md, Speed). Every other POST goes to the SDK's transport, which gives its own answers
// and refusals.

import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpCaller } from './server.ts';

export type JsonRpcAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/**
 * The methods a server shared by all callers may answer: they read nothing the server keeps about
 * a client (initialize, for one, records the client's capabilities), so one caller's request
 * cannot change another's answer. Every other method goes to a server of its own, whose answer
 * (method not found, mostly) is the SDK's.
 */
const SHARED_METHODS = new Set(['tools/call', 'tools/list', 'ping']);

/** The headers of the request as Node gives them (one value, or several). */
type HeaderValue = string | string[] | undefined;

/**
 * The message, when the SDK's transport would accept this POST and answer it with one JSON
 * answer: both media types accepted, a JSON body, a supported protocol version (or none), one
 * JSON-RPC request of a shared method. Otherwise undefined, and the SDK's transport decides.
 */
export function oneCallRequest(
  headers: Record<string, HeaderValue>,
  body: unknown,
): JSONRPCRequest | undefined {
  const accept = headers.accept;
  const contentType = headers['content-type'];
  const version = headers['mcp-protocol-version'];
  if (
    typeof accept !== 'string' ||
    !accept.includes('application/json') ||
    !accept.includes('text/event-stream')
  ) {
    return undefined;
  }
  if (typeof contentType !== 'string' || !isJsonContentType(contentType)) return undefined;
  if (
    version !== undefined &&
    (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  ) {
    return undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  // The method first: a look-up, where the SDK's schemas below are zod parses.
  const method = (body as { method?: unknown }).method;
  if (typeof method !== 'string' || !SHARED_METHODS.has(method)) return undefined;
  const parsed = JSONRPCMessageSchema.safeParse(body);
  if (!parsed.success || !isJSONRPCRequest(parsed.data)) return undefined;
  if (parsed.data.params?._meta?.progressToken !== undefined) return undefined;
  return parsed.data;
}

/**
 * Carries single requests, from any number of callers at once, to one Server that serves them all,
 * and each answer back to its caller. Each request is given an id of its own before the server sees
 * it (a counter, never reused, so two clients' equal ids never meet), the caller is looked up by
 * that id (callerOf), and the answer gets the client's id back. Notifications the server sends
 * meanwhile are dropped, as the SDK's transport drops them from a JSON answer (none are sent
 * without a progress token).
 */
export class OneCallTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #lastId = 0;
  readonly #pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  /**
   * Hands a request to the server. The answer is undefined when the call was cancelled (the
   * client went away): the server's handler is aborted through MCP's own cancellation.
   */
  call(
    request: JSONRPCRequest,
    caller: McpCaller,
  ): { answer: Promise<JsonRpcAnswer | undefined>; cancel(): void } {
    const id = ++this.#lastId;
    let settle!: (answer: JsonRpcAnswer | undefined) => void;
    const answer = new Promise<JsonRpcAnswer | undefined>((resolve) => {
      settle = resolve;
    });
    this.#pending.set(id, { clientId: request.id, caller, settle });
    this.onmessage?.({ ...request, id });
    const cancel = () => {
      if (!this.#pending.delete(id)) return;
      settle(undefined);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: 'The client went away.' },
      });
    };
    return { answer, cancel };
  }

  /** The caller of a request the server is handling (undefined once answered or cancelled). */
  callerOf(id: RequestId): McpCaller | undefined {
    return typeof id === 'number' ? this.#pending.get(id)?.caller : undefined;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // A message without a method is a response (JSON-RPC's shapes; the server sends only valid ones).
    if ('method' in message) return;
    const answer = message as JsonRpcAnswer;
    if (typeof answer.id !== 'number') return;
    const pending = this.#pending.get(answer.id);
    if (pending === undefined) return;
    this.#pending.delete(answer.id);
    pending.settle({ ...answer, id: pending.clientId });
  }

  async close(): Promise<void> {
    for (const pending of this.#pending.values()) pending.settle(undefined);
    this.#pending.clear();
    this.onclose?.();
  }
}

interface Pending {
  clientId: RequestId;
  caller: McpCaller;
  settle: (answer: JsonRpcAnswer | undefined) => void;
}
