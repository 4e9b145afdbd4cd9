// The transport of a POST /mcp that carries one ordinary request: a single JSON-RPC request (not
// initialize, no progress token) whose headers the SDK's streamable HTTP transport would accept.
// The SDK's Server answers it as on any transport (its JSON-RPC checks, the handlers); what is left
// out is the web-standard transport's wrapping: a web Request built from Fastify's request, and a
// web Response built around the answer and read back as text, which cost more than the rest of the
// MCP layer together (profiled: docs/mcp.md, Speed). Every other POST goes to the SDK's transport,
// which gives its own answers and refusals.

import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

export type JsonRpcAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/** The headers of the request as Node gives them (one value, or several). */
type HeaderValue = string | string[] | undefined;

/**
 * The message, when the SDK's transport would accept this POST and answer it with one JSON
 * answer: both media types accepted, a JSON body, a supported protocol version (or none), one
 * JSON-RPC request that is not initialize. Otherwise undefined, and the SDK's transport decides.
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
  const parsed = JSONRPCMessageSchema.safeParse(body);
  if (!parsed.success || !isJSONRPCRequest(parsed.data) || isInitializeRequest(parsed.data)) return undefined;
  if (parsed.data.params?._meta?.progressToken !== undefined) return undefined;
  return parsed.data;
}

/**
 * Carries one request to a Server and its answer back. Notifications the server sends meanwhile
 * are dropped, as the SDK's transport drops them from a JSON answer (none are sent without a
 * progress token). Closed before the answer (the client went away), it answers undefined.
 */
export class OneCallTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly answer: Promise<JsonRpcAnswer | undefined>;
  #settle!: (answer: JsonRpcAnswer | undefined) => void;
  #closed = false;

  readonly #request: JSONRPCRequest;

  constructor(request: JSONRPCRequest) {
    this.#request = request;
    this.answer = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  async start(): Promise<void> {}

  /** Hands the request to the server: call after connecting it. */
  deliver(): void {
    this.onmessage?.(this.#request);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // A message without a method is a response (JSON-RPC's shapes; the server sends only valid ones).
    if (!('method' in message)) this.#settle(message as JsonRpcAnswer);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#settle(undefined);
    this.onclose?.();
  }
}
