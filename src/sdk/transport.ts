// One HTTP exchange with the API over the platform's fetch: builds the URL, sends the key in the
// Authorization header, reads JSON, and turns error answers into typed errors. Only web-platform
// globals are used (fetch, URL, Headers, AbortSignal), so it runs in Node 22+, Deno, Bun and browsers.
import { DocwrightError, DocwrightNetworkError, errorForStatus } from './errors.ts';
import type { ErrorBody } from './types.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path segments after the base URL; each is percent-encoded. */
  segments: string[];
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

export class Transport {
  readonly baseUrl: string;
  // A private field: the key is not shown by console.log, JSON.stringify or an inspector's view.
  readonly #apiKey: string;
  readonly #fetch: FetchLike;

  constructor(options: TransportOptions) {
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) {
      throw new TypeError('baseUrl must be an http:// or https:// URL, e.g. http://127.0.0.1:3000');
    }
    let parsed: URL;
    try {
      parsed = new URL(options.baseUrl);
    } catch {
      throw new TypeError('baseUrl is not a valid URL');
    }
    // Credentials in a URL end up in error messages and logs (and browsers refuse them).
    if (parsed.username !== '' || parsed.password !== '') {
      throw new TypeError('baseUrl must not contain a user name or password; the API key goes in apiKey');
    }
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('apiKey is required (a docwright API key, dw_...)');
    }
    // Keep a path prefix (a server behind a proxy at /docwright/) and drop a trailing slash.
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey.trim();
    // Browsers refuse a fetch called as a method of another object ("Illegal invocation").
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The request's path and query, as shown in errors. */
  pathOf(spec: Pick<RequestSpec, 'segments' | 'query'>): string {
    const path = `/${spec.segments.map(encodeURIComponent).join('/')}`;
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== null) query.append(name, String(value));
    }
    const text = query.toString();
    return text === '' ? path : `${path}?${text}`;
  }

  /**
   * Sends the request and returns the response when its status is 2xx; any other status throws
   * the typed error built from the API's error body. Network failures throw DocwrightNetworkError;
   * an abort rethrows the signal's reason.
   */
  async send(spec: RequestSpec): Promise<Response> {
    const path = this.pathOf(spec);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...spec.headers,
      authorization: `Bearer ${this.#apiKey}`,
    };
    const init: RequestInit = { method: spec.method, headers };
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(spec.body);
    }
    if (spec.signal) init.signal = spec.signal;
    let response: Response;
    try {
      response = await this.#fetch(`${this.baseUrl}${path}`, init);
    } catch (error) {
      throw networkOrAbort(error, spec.signal, spec.method, path, this.baseUrl);
    }
    if (response.ok) return response;
    throw await errorFromResponse(response, spec.method, path);
  }

  /** send() and read the whole body as text. */
  async text(spec: RequestSpec): Promise<{ response: Response; text: string }> {
    const response = await this.send(spec);
    try {
      return { response, text: await response.text() };
    } catch (error) {
      throw networkOrAbort(error, spec.signal, spec.method, this.pathOf(spec), this.baseUrl);
    }
  }

  /** send() and parse the JSON body. */
  async json<T>(spec: RequestSpec): Promise<T> {
    const { response, text } = await this.text(spec);
    return this.parseJson<T>(text, response, spec);
  }

  /** The body as JSON; an answer that is not JSON is an unexpected_response error. */
  parseJson<T>(text: string, response: Response, spec: RequestSpec): T {
    try {
      return JSON.parse(text) as T;
    } catch {
      throw unexpected(response, spec.method, this.pathOf(spec), `the answer is not JSON: ${snippet(text)}`);
    }
  }
}

/** The abort reason when the caller aborted, else a network error naming the server. */
export function networkOrAbort(
  error: unknown,
  signal: AbortSignal | undefined,
  method: string,
  path: string,
  baseUrl: string,
): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof DocwrightError || error instanceof DocwrightNetworkError) return error;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const why =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : (error as Error)?.message;
  return new DocwrightNetworkError(`Could not reach docwright at ${baseUrl} (${method} ${path}): ${why}`, {
    method,
    path,
    cause: error,
  });
}

async function errorFromResponse(response: Response, method: string, path: string): Promise<DocwrightError> {
  const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The status alone still says what happened.
  }
  const body = parseErrorBody(text);
  if (body === null) {
    return unexpected(response, method, path, snippet(text), retryAfterSeconds);
  }
  return errorForStatus({
    status: response.status,
    code: body.code,
    message: body.error,
    requestId: body.requestId ?? response.headers.get('x-request-id'),
    ...(body.details ? { details: body.details } : {}),
    retryAfterSeconds,
    method,
    path,
  });
}

function parseErrorBody(text: string): ErrorBody | null {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody> | null;
    if (body && typeof body.error === 'string' && typeof body.code === 'string') return body as ErrorBody;
  } catch {}
  return null;
}

/** An answer that is not the API's (a proxy's HTML page, a truncated body). */
function unexpected(
  response: Response,
  method: string,
  path: string,
  what: string,
  retryAfterSeconds: number | null = null,
): DocwrightError {
  return errorForStatus({
    status: response.status,
    code: 'unexpected_response',
    message: `Unexpected answer ${response.status} ${response.statusText} to ${method} ${path}${what ? `: ${what}` : ''} (is the URL that of a docwright server?)`,
    requestId: response.headers.get('x-request-id'),
    retryAfterSeconds,
    method,
    path,
  });
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
