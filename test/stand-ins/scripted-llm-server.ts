// A local stand-in for model providers: an HTTP server on 127.0.0.1 that speaks two real wire
// protocols, driven by a script, and records every request it receives.
//
// Built from the providers' public API references (checked with the search tool, docs corpus):
// - OpenAI Chat Completions, `POST /v1/chat/completions`: the `chat.completion` object (choices
//   with `message.content` / `message.tool_calls[{id, type: "function", function: {name,
//   arguments}}]`, `finish_reason` stop | tool_calls | length, `usage.prompt_tokens /
//   completion_tokens / total_tokens`, and `prompt_tokens_details.cached_tokens`, part of
//   prompt_tokens, when the prompt cache was read); with `stream: true`, server-sent `data:` lines of
//   `chat.completion.chunk` objects (`delta.content`, `delta.tool_calls[{index, id, function}]`
//   with the arguments in fragments) ending in `data: [DONE]`; when the request sets
//   `stream_options.include_usage`, every chunk carries `usage: null` and one extra chunk with
//   empty `choices` and the usage comes before `[DONE]`. Errors are `{error: {message, type,
//   param, code}}`.
// - Anthropic Messages, `POST /v1/messages`: the `message` object (`content` blocks `text` and
//   `tool_use {id, name, input}`, `stop_reason` end_turn | tool_use | max_tokens,
//   `usage.input_tokens / output_tokens`, and with prompt caching `cache_creation_input_tokens /
//   cache_read_input_tokens`, which input_tokens excludes); with `stream: true`, SSE `event:`/`data:` pairs
//   message_start, content_block_start, ping, content_block_delta (`text_delta`,
//   `input_json_delta` with `partial_json`), content_block_stop, message_delta (stop_reason and
//   output usage), message_stop. Errors are `{type: "error", error: {type, message}}` with the
//   error type that matches the status (invalid_request_error, authentication_error,
//   rate_limit_error, api_error, overloaded_error...).
// It is verified through the real client libraries (@ai-sdk/openai `.chat()`, @ai-sdk/anthropic,
// @ai-sdk/openai-compatible) in test/models/*.test.ts: if it drifted from what they parse, those
// tests would fail.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WireProtocol = 'openai' | 'anthropic';

export interface ScriptedUsage {
  /** All input tokens, cache reads and writes included (what the AI SDK reports as inputTokens). */
  inputTokens: number;
  outputTokens: number;
  /**
   * Of inputTokens, read from the prompt cache: OpenAI `usage.prompt_tokens_details.cached_tokens`
   * (prompt_tokens includes them); Anthropic `usage.cache_read_input_tokens` (input_tokens
   * excludes them).
   */
  cacheReadTokens?: number;
  /**
   * Of inputTokens, written into the prompt cache: Anthropic `usage.cache_creation_input_tokens`.
   * OpenAI reports no cache writes, so its answers leave these out.
   */
  cacheWriteTokens?: number;
}

export interface ScriptedToolCall {
  name: string;
  input: unknown;
  /** Defaults to a fresh id (call_N for OpenAI, toolu_N for Anthropic). */
  id?: string;
}

/** One answer of the scripted model. */
export type ScriptedReply =
  | {
      kind: 'message';
      text?: string;
      toolCalls?: ScriptedToolCall[];
      /** Defaults to a count derived from the sizes of the request and the answer. */
      usage?: ScriptedUsage;
      /** Defaults to tool_calls when there are tool calls, else stop. */
      finishReason?: 'stop' | 'tool_calls' | 'length';
      /** Wait this long before answering (cut short if the client goes away). */
      delayMs?: number;
      /**
       * Send only the beginning of the answer (status, headers, and about half of the body or
       * of the stream's events), then nothing more: the connection stays open until the client
       * closes it, like a provider that stalls in the middle of an answer.
       */
      stall?: boolean;
    }
  | {
      kind: 'error';
      status: number;
      /** The message in the provider's error body. */
      message?: string;
      /** Replaces the provider-shaped error body entirely. */
      body?: unknown;
      headers?: Record<string, string>;
    }
  /** Never answers: the request stays open until the client aborts it. */
  | { kind: 'hang' }
  /** Destroys the connection without an answer (a network failure for the client). */
  | { kind: 'disconnect' };

export type ScriptStep =
  | ScriptedReply
  | ((request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

/** Short constructors for script steps. */
export const reply = {
  text: (text: string, extra: Partial<Extract<ScriptedReply, { kind: 'message' }>> = {}): ScriptedReply => ({
    kind: 'message',
    text,
    ...extra,
  }),
  toolCalls: (
    toolCalls: ScriptedToolCall[],
    extra: Partial<Extract<ScriptedReply, { kind: 'message' }>> = {},
  ): ScriptedReply => ({ kind: 'message', toolCalls, ...extra }),
  toolCall: (
    name: string,
    input: unknown,
    extra: Partial<Extract<ScriptedReply, { kind: 'message' }>> = {},
  ) => reply.toolCalls([{ name, input }], extra),
  error: (
    status: number,
    options: { message?: string; body?: unknown; headers?: Record<string, string>; retryAfter?: string } = {},
  ): ScriptedReply => ({
    kind: 'error',
    status,
    ...(options.message !== undefined ? { message: options.message } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    headers: {
      ...(options.retryAfter !== undefined ? { 'retry-after': options.retryAfter } : {}),
      ...options.headers,
    },
  }),
  hang: (): ScriptedReply => ({ kind: 'hang' }),
  /** Starts the answer (text and tool calls as given) and stops halfway. */
  stall: (
    toolCalls: ScriptedToolCall[] = [],
    extra: Partial<Extract<ScriptedReply, { kind: 'message' }>> = {},
  ): ScriptedReply => ({
    kind: 'message',
    text: 'Let me look at the files first.',
    toolCalls,
    ...extra,
    stall: true,
  }),
  disconnect: (): ScriptedReply => ({ kind: 'disconnect' }),
};

export interface RecordedToolResult {
  toolCallId: string;
  /** The tool's name, found from the assistant turn that called it. */
  toolName: string | undefined;
  /** The result as text (what the model would read). */
  output: string;
  /** Anthropic's is_error flag; always false for OpenAI, which has none. */
  isError: boolean;
}

export interface RecordedRequest {
  /** 0 for the first request the server received. */
  index: number;
  protocol: WireProtocol;
  method: string;
  path: string;
  /** Date.now() when the request arrived. */
  receivedAt: number;
  /** Lower-cased names; the values of credential headers are replaced by "[redacted]". */
  headers: Record<string, string>;
  /** Whether a credential header (authorization, x-api-key) was sent, and whether it matched. */
  apiKey: { present: boolean; header: string | null; matches: boolean | null };
  /** The parsed JSON body, as sent. */
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** All system text, joined by blank lines. */
  system: string;
  /** The text of every user message, in order. */
  userTexts: string[];
  /** Names of the tools offered. */
  toolNames: string[];
  /** Every tool result in the conversation, in order. */
  toolResults: RecordedToolResult[];
  /** The tool results sent since the model's last turn (what it should react to now). */
  latestToolResults: RecordedToolResult[];
  /** How many assistant turns the conversation already has. */
  assistantTurns: number;
  /** Set when the client closed the connection before the answer was complete. */
  abortedAt: number | null;
}

export interface ScriptedLlmServerOptions {
  /** When set, requests without this key get a 401 in the provider's format. */
  apiKey?: string;
}

export interface ScriptedLlmServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The base URL to give every provider package: http://127.0.0.1:PORT/v1 */
  baseURL: string;
  readonly requests: RecordedRequest[];
  /** Adds answers to the queue, used in order, one per request. */
  enqueue(...steps: ScriptStep[]): void;
  /** Answers requests when the queue is empty. */
  setFallback(step: ScriptStep | null): void;
  /** Resolves once at least `count` requests have arrived. */
  waitForRequests(count: number): Promise<RecordedRequest[]>;
  /** Resolves when the client has closed request `index` before its answer completed. */
  waitForAbort(index: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key'];

export async function startScriptedLlmServer(
  options: ScriptedLlmServerOptions = {},
): Promise<ScriptedLlmServer> {
  const queue: ScriptStep[] = [];
  let fallback: ScriptStep | null = null;
  const requests: RecordedRequest[] = [];
  const waiters = new Set<() => void>();
  let idCounter = 0;
  const nextId = (prefix: string) => `${prefix}${++idCounter}`;
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `scripted server fault: ${String(error)}` } }));
      } else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0]!;
    const protocol: WireProtocol | null =
      req.method === 'POST' && path === '/v1/chat/completions'
        ? 'openai'
        : req.method === 'POST' && path === '/v1/messages'
          ? 'anthropic'
          : null;
    if (protocol === null) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `No route ${req.method} ${path}`, type: 'not_found' } }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      sendError(res, protocol, { kind: 'error', status: 400, message: 'The body is not valid JSON.' });
      return;
    }

    const { headers, apiKey } = redactHeaders(req, protocol, options.apiKey);
    const record: RecordedRequest = {
      index: requests.length,
      protocol,
      method: req.method ?? 'POST',
      path,
      receivedAt,
      headers,
      apiKey,
      body,
      model: typeof body.model === 'string' ? body.model : '',
      stream: body.stream === true,
      abortedAt: null,
      ...(protocol === 'openai' ? readOpenAiConversation(body) : readAnthropicConversation(body)),
    };
    requests.push(record);
    let finished = false;
    res.on('finish', () => {
      finished = true;
    });
    res.on('close', () => {
      if (!finished && record.abortedAt === null) {
        record.abortedAt = Date.now();
        notify();
      }
    });
    notify();

    if (options.apiKey !== undefined && apiKey.matches !== true) {
      sendError(res, protocol, {
        kind: 'error',
        status: 401,
        message: apiKey.present ? 'Incorrect API key provided.' : 'No API key provided.',
      });
      return;
    }

    const step = queue.shift() ?? fallback;
    if (step === null) {
      sendError(res, protocol, {
        kind: 'error',
        status: 400,
        message: `The scripted LLM server has no answer for request #${record.index}: the test's script ran out.`,
      });
      return;
    }
    const answer = typeof step === 'function' ? await step(record) : step;
    await respond(res, protocol, record, answer, nextId);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const waitFor = <T>(check: () => T | undefined): Promise<T> =>
    new Promise((resolve) => {
      const attempt = () => {
        const value = check();
        if (value === undefined) return;
        waiters.delete(attempt);
        resolve(value);
      };
      waiters.add(attempt);
      attempt();
    });

  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    enqueue: (...steps) => {
      queue.push(...steps);
    },
    setFallback: (step) => {
      fallback = step;
    },
    waitForRequests: (count) => waitFor(() => (requests.length >= count ? [...requests] : undefined)),
    waitForAbort: (index) =>
      waitFor(() => {
        const request = requests[index];
        return request !== undefined && request.abortedAt !== null ? request : undefined;
      }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function redactHeaders(
  req: IncomingMessage,
  protocol: WireProtocol,
  expectedKey: string | undefined,
): { headers: Record<string, string>; apiKey: RecordedRequest['apiKey'] } {
  const headers: Record<string, string> = {};
  let sentKey: string | null = null;
  let keyHeader: string | null = null;
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (CREDENTIAL_HEADERS.includes(name)) {
      keyHeader = name;
      sentKey = name === 'authorization' ? text.replace(/^Bearer\s+/i, '') : text;
      headers[name] = name === 'authorization' ? 'Bearer [redacted]' : '[redacted]';
    } else headers[name] = text;
  }
  // Each protocol has its own credential header; a key in the other one is not a key here.
  const expectedHeader = protocol === 'anthropic' ? 'x-api-key' : 'authorization';
  const present = sentKey !== null && sentKey !== '' && keyHeader === expectedHeader;
  return {
    headers,
    apiKey: {
      present,
      header: keyHeader,
      matches: expectedKey === undefined ? null : present && sentKey === expectedKey,
    },
  };
}

type Conversation = Pick<
  RecordedRequest,
  'system' | 'userTexts' | 'toolNames' | 'toolResults' | 'latestToolResults' | 'assistantTurns'
>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        const p = part as { type?: string; text?: string };
        return p.type === 'text' && typeof p.text === 'string' ? p.text : '';
      })
      .join('');
  }
  return '';
}

function readOpenAiConversation(body: Record<string, unknown>): Conversation {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const system: string[] = [];
  const userTexts: string[] = [];
  const toolResults: RecordedToolResult[] = [];
  let latestToolResults: RecordedToolResult[] = [];
  const toolNameById = new Map<string, string>();
  let assistantTurns = 0;
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content));
    else if (message.role === 'user') userTexts.push(textOf(message.content));
    else if (message.role === 'assistant') {
      assistantTurns++;
      latestToolResults = [];
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      for (const call of calls as { id: string; function: { name: string } }[]) {
        toolNameById.set(call.id, call.function.name);
      }
    } else if (message.role === 'tool') {
      const id = String(message.tool_call_id);
      const result = {
        toolCallId: id,
        toolName: toolNameById.get(id),
        output: textOf(message.content),
        isError: false,
      };
      toolResults.push(result);
      latestToolResults.push(result);
    }
  }
  const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]) : [];
  return {
    system: system.join('\n\n'),
    userTexts,
    toolNames: tools.map((t) => t.function?.name ?? ''),
    toolResults,
    latestToolResults,
    assistantTurns,
  };
}

function readAnthropicConversation(body: Record<string, unknown>): Conversation {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const system =
    typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? body.system : [];
  const systemText =
    typeof system === 'string'
      ? system
      : (system as { text?: string }[]).map((block) => block.text ?? '').join('\n\n');
  const userTexts: string[] = [];
  const toolResults: RecordedToolResult[] = [];
  let latestToolResults: RecordedToolResult[] = [];
  const toolNameById = new Map<string, string>();
  let assistantTurns = 0;
  for (const message of messages) {
    const blocks =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : ((message.content ?? []) as Record<string, unknown>[]);
    if (message.role === 'assistant') {
      assistantTurns++;
      latestToolResults = [];
      for (const block of blocks) {
        if (block.type === 'tool_use') toolNameById.set(String(block.id), String(block.name));
      }
      continue;
    }
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => String(b.text))
      .join('');
    if (text !== '') userTexts.push(text);
    for (const block of blocks) {
      if (block.type !== 'tool_result') continue;
      const id = String(block.tool_use_id);
      const result = {
        toolCallId: id,
        toolName: toolNameById.get(id),
        output: textOf(block.content),
        isError: block.is_error === true,
      };
      toolResults.push(result);
      latestToolResults.push(result);
    }
  }
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: string }[]) : [];
  return {
    system: systemText,
    userTexts,
    toolNames: tools.map((t) => t.name ?? ''),
    toolResults,
    latestToolResults,
    assistantTurns,
  };
}

async function respond(
  res: ServerResponse,
  protocol: WireProtocol,
  record: RecordedRequest,
  answer: ScriptedReply,
  nextId: (prefix: string) => string,
): Promise<void> {
  switch (answer.kind) {
    case 'hang':
      // Nothing is written; the 'close' listener records the client's abort.
      return;
    case 'disconnect':
      res.socket?.destroy();
      return;
    case 'error':
      sendError(res, protocol, answer);
      return;
    case 'message': {
      if (answer.delayMs !== undefined && answer.delayMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, answer.delayMs);
          res.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (res.destroyed || record.abortedAt !== null) return;
      }
      const calls = (answer.toolCalls ?? []).map((call) => ({
        id: call.id ?? nextId(protocol === 'openai' ? 'call_' : 'toolu_'),
        name: call.name,
        arguments: JSON.stringify(call.input ?? {}),
        input: call.input ?? {},
      }));
      const text = answer.text ?? '';
      const usage = answer.usage ?? {
        // Deterministic and never zero, roughly four characters a token.
        inputTokens: Math.max(1, Math.ceil(JSON.stringify(record.body).length / 4)),
        outputTokens: Math.max(
          1,
          Math.ceil((text.length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4),
        ),
      };
      const finish = answer.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
      const message: PreparedMessage = {
        id: nextId(protocol === 'openai' ? 'chatcmpl-' : 'msg_'),
        text,
        calls,
        usage,
        finish,
      };
      const stall = answer.stall === true;
      if (protocol === 'openai') {
        if (record.stream) writeOpenAiStream(res, record, message, stall);
        else writeJson(res, 200, openAiCompletion(record, message), {}, stall);
      } else if (record.stream) writeAnthropicStream(res, record, message, stall);
      else writeJson(res, 200, anthropicMessage(record, message), {}, stall);
      return;
    }
  }
}

interface PreparedMessage {
  id: string;
  text: string;
  calls: { id: string; name: string; arguments: string; input: unknown }[];
  usage: ScriptedUsage;
  finish: 'stop' | 'tool_calls' | 'length';
}

function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  stall = false,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  // The length announced is the whole body's: the client keeps waiting for the rest.
  if (stall) res.write(text.slice(0, Math.floor(text.length / 2)));
  else res.end(text);
}

/** Writes a stream's events in order and ends it; a stalling one stops after half of them. */
function writeEvents(res: ServerResponse, events: string[], stall: boolean): void {
  startSse(res);
  const sent = stall ? events.slice(0, Math.max(1, Math.floor(events.length / 2))) : events;
  for (const event of sent) res.write(event);
  if (!stall) res.end();
}

const OPENAI_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function sendError(
  res: ServerResponse,
  protocol: WireProtocol,
  error: Extract<ScriptedReply, { kind: 'error' }>,
) {
  const message = error.message ?? `Scripted error ${error.status}.`;
  const body =
    error.body ??
    (protocol === 'openai'
      ? {
          error: {
            message,
            type: OPENAI_ERROR_TYPES[error.status] ?? 'server_error',
            param: null,
            code: error.status === 401 ? 'invalid_api_key' : null,
          },
        }
      : {
          type: 'error',
          error: { type: ANTHROPIC_ERROR_TYPES[error.status] ?? 'api_error', message },
          request_id: `req_scripted_${error.status}`,
        });
  writeJson(res, error.status, body, error.headers ?? {});
}

const CREATED = 1_700_000_000;

function openAiCompletion(record: RecordedRequest, m: PreparedMessage) {
  return {
    id: m.id,
    object: 'chat.completion',
    created: CREATED,
    model: record.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: m.text === '' ? null : m.text,
          ...(m.calls.length > 0
            ? {
                tool_calls: m.calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: m.finish,
      },
    ],
    usage: openAiUsage(m.usage),
  };
}

function openAiUsage(usage: ScriptedUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens !== undefined
      ? {
          prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        }
      : {}),
  };
}

/** Anthropic's input usage: input_tokens counts only what was neither read from nor written to the cache. */
function anthropicInputUsage(usage: ScriptedUsage) {
  const cached = usage.cacheReadTokens !== undefined || usage.cacheWriteTokens !== undefined;
  if (!cached) return { input_tokens: usage.inputTokens };
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - read - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
  };
}

/** Splits text into two or three pieces so clients must reassemble deltas. */
function pieces(text: string): string[] {
  if (text.length < 3) return text === '' ? [] : [text];
  const a = Math.floor(text.length / 3);
  const b = Math.floor((2 * text.length) / 3);
  return [text.slice(0, a), text.slice(a, b), text.slice(b)];
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

function writeOpenAiStream(
  res: ServerResponse,
  record: RecordedRequest,
  m: PreparedMessage,
  stall: boolean,
): void {
  const events: string[] = [];
  const options = record.body.stream_options as { include_usage?: boolean } | undefined;
  const includeUsage = options?.include_usage === true;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => {
    const payload = {
      id: m.id,
      object: 'chat.completion.chunk',
      created: CREATED,
      model: record.model,
      choices,
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    };
    events.push(`data: ${JSON.stringify(payload)}\n\n`);
  };
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  for (const piece of pieces(m.text)) {
    chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]);
  }
  m.calls.forEach((call, index) => {
    chunk([
      {
        index: 0,
        delta: {
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        },
        logprobs: null,
        finish_reason: null,
      },
    ]);
    for (const piece of pieces(call.arguments)) {
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: piece } }] },
          logprobs: null,
          finish_reason: null,
        },
      ]);
    }
  });
  chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: m.finish }]);
  if (includeUsage) chunk([], { usage: openAiUsage(m.usage) });
  events.push('data: [DONE]\n\n');
  writeEvents(res, events, stall);
}

const ANTHROPIC_STOP: Record<PreparedMessage['finish'], string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
};

function anthropicMessage(record: RecordedRequest, m: PreparedMessage) {
  return {
    id: m.id,
    type: 'message',
    role: 'assistant',
    model: record.model,
    content: [
      ...(m.text === '' ? [] : [{ type: 'text', text: m.text }]),
      ...m.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input })),
    ],
    stop_reason: ANTHROPIC_STOP[m.finish],
    stop_sequence: null,
    usage: { ...anthropicInputUsage(m.usage), output_tokens: m.usage.outputTokens },
  };
}

function writeAnthropicStream(
  res: ServerResponse,
  record: RecordedRequest,
  m: PreparedMessage,
  stall: boolean,
): void {
  const events: string[] = [];
  const event = (type: string, data: Record<string, unknown>) => {
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event('message_start', {
    message: {
      id: m.id,
      type: 'message',
      role: 'assistant',
      model: record.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...anthropicInputUsage(m.usage), output_tokens: 1 },
    },
  });
  let index = 0;
  if (m.text !== '') {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    event('ping', {});
    for (const piece of pieces(m.text)) {
      event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    }
    event('content_block_stop', { index });
    index++;
  }
  for (const call of m.calls) {
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    for (const piece of pieces(call.arguments)) {
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    event('content_block_stop', { index });
    index++;
  }
  event('message_delta', {
    delta: { stop_reason: ANTHROPIC_STOP[m.finish], stop_sequence: null },
    usage: { output_tokens: m.usage.outputTokens },
  });
  event('message_stop', {});
  writeEvents(res, events, stall);
}
