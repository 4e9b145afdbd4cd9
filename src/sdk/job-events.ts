// GET .../job/{id}/events as an async iterator of job events. The stream is read with fetch and a
// ReadableStream (no EventSource: it cannot send the Authorization header). When the connection
// drops, it reconnects with Last-Event-ID set to the last event received, so nothing is missed or
// repeated; the server answers 204 once the job is over and everything was sent, which ends the
// iteration.
import { DocwrightError, DocwrightNetworkError } from './errors.ts';
import { readEventStream, SseParser } from './sse.ts';
import { backoff, childController, sleep } from './timing.ts';
import type { Transport } from './transport.ts';
import type { JobEvent } from './types.ts';

export interface StreamJobEventsOptions {
  signal?: AbortSignal;
  /** Start after this event id (the id of the last event you have); default: from the first. */
  lastEventId?: string | number;
  /** Reconnections in a row, without an event in between, before giving up (default 5). */
  maxReconnects?: number;
  /** Wait before reconnecting when the server says nothing else (ms, default 2000). */
  reconnectMs?: number;
}

export async function* streamJobEvents(
  transport: Transport,
  projectId: string,
  jobId: string,
  options: StreamJobEventsOptions = {},
): AsyncGenerator<JobEvent, void, undefined> {
  const segments = ['v2', 'agent', projectId, 'job', jobId, 'events'];
  const maxReconnects = options.maxReconnects ?? 5;
  let lastEventId = options.lastEventId === undefined ? null : String(options.lastEventId);
  let reconnectMs = options.reconnectMs ?? 2000;
  const delays = backoff(reconnectMs, 30_000);
  let failures = 0;

  for (;;) {
    const { controller, release } = childController(options.signal);
    let received = 0;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastEventId !== null && lastEventId !== '') headers['last-event-id'] = lastEventId;
      let response: Response;
      try {
        response = await transport.send({ method: 'GET', segments, headers, signal: controller.signal });
      } catch (error) {
        const wait = retryDelay(error, options.signal);
        if (wait === null || ++failures > maxReconnects) throw error;
        await sleep(wait ?? delays.next(), options.signal);
        continue;
      }
      if (response.status === 204) return; // the job is over and we have every event
      const type = response.headers.get('content-type') ?? '';
      if (!type.toLowerCase().startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => {});
        throw new DocwrightError({
          status: response.status,
          code: 'unexpected_response',
          message: `Expected an event stream from GET ${transport.pathOf({ segments })}, got "${type}".`,
          requestId: response.headers.get('x-request-id'),
          method: 'GET',
          path: transport.pathOf({ segments }),
        });
      }
      const parser = new SseParser();
      try {
        for await (const message of readEventStream(response.body, parser)) {
          if (parser.retryMs !== null) reconnectMs = parser.retryMs;
          const event = parseEvent(message.data, transport.pathOf({ segments }));
          if (message.lastEventId !== null) lastEventId = message.lastEventId;
          received++;
          failures = 0;
          delays.reset();
          yield event;
        }
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (error instanceof DocwrightError) throw error;
        // The connection broke mid-stream: reconnect after the stream's retry time.
        if (++failures > maxReconnects) {
          throw new DocwrightNetworkError(
            `The event stream of job ${jobId} broke ${failures} times in a row: ${(error as Error)?.message}`,
            { method: 'GET', path: transport.pathOf({ segments }), cause: error },
          );
        }
        await sleep(jittered(reconnectMs), options.signal);
        continue;
      }
      if (parser.retryMs !== null) reconnectMs = parser.retryMs;
      // A clean end: the job is over (the next answer is 204) or the server is restarting. An end
      // with nothing in it waits first, so a server that keeps ending streams is not hammered.
      if (received === 0) {
        if (++failures > maxReconnects) {
          throw new DocwrightNetworkError(
            `The event stream of job ${jobId} ended ${failures} times in a row without an event.`,
            { method: 'GET', path: transport.pathOf({ segments }) },
          );
        }
        await sleep(jittered(reconnectMs), options.signal);
      }
    } finally {
      // Ends the request when the caller stops iterating early (break, return, throw).
      controller.abort();
      release();
    }
  }
}

/**
 * How long to wait before trying again after a failed connection attempt: Retry-After on 429 and
 * 503, undefined for a plain backoff (network errors, other 5xx), null when retrying cannot help.
 */
function retryDelay(error: unknown, signal: AbortSignal | undefined): number | undefined | null {
  if (signal?.aborted) return null;
  if (error instanceof DocwrightNetworkError) return undefined;
  if (error instanceof DocwrightError && error.retryable) {
    return error.retryAfterSeconds === null ? undefined : error.retryAfterSeconds * 1000;
  }
  return null;
}

function jittered(ms: number): number {
  return Math.round(ms * (0.75 + Math.random() * 0.5));
}

function parseEvent(data: string, path: string): JobEvent {
  try {
    const event = JSON.parse(data) as JobEvent;
    if (event && typeof event === 'object' && typeof event.type === 'string') return event;
  } catch {}
  throw new DocwrightError({
    status: 200,
    code: 'unexpected_response',
    message: `An event of GET ${path} is not a job event: ${data.slice(0, 200)}`,
    requestId: null,
    method: 'GET',
    path,
  });
}
