// What the three code-host fakes (github-fake.ts, gitlab-fake.ts, gitea-fake.ts) share: a
// node:http server on 127.0.0.1, JSON in and out, scripted faults, and a record of every request
// with credentials redacted, so a test can assert what the client sent, print it safely, and see
// (secretLeaks) whether a token travelled anywhere but its header.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query as received, with known secrets replaced by [REDACTED]. */
  url: string;
  /** Headers with every credential value replaced: "token [REDACTED]", "Basic [REDACTED]"... */
  headers: Record<string, string>;
  /** The raw body, with known secrets replaced. */
  body: string;
  status: number;
}

/** A scripted answer that replaces the fake's own, for the next matching requests. */
export interface ScriptedFault {
  status: number;
  /** Only requests with this method (default: any). */
  method?: string;
  /** Only requests whose path (without query) matches (default: any). */
  path?: RegExp;
  /** How many requests it answers (default 1). */
  times?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakeRequest {
  method: string;
  /** Path without query, each segment URL-decoded, split on "/" (so %2F stays inside a segment). */
  segments: string[];
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or undefined when there was none. */
  json: unknown;
}

export interface FakeAnswer {
  status: number;
  body?: unknown;
  /** A plain-text body (GitLab's job logs), sent as is instead of `body`'s JSON. */
  text?: string;
  headers?: Record<string, string>;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'private-token', 'job-token', 'proxy-authorization']);

export class CodeHostFakeServer {
  readonly requests: RecordedRequest[] = [];
  /**
   * Where a known secret turned up outside a credential header (in a URL, a body or another
   * header): a leak by the client. Recorded redacted, and listed here for tests to assert empty.
   */
  readonly secretLeaks: string[] = [];
  readonly #faults: ScriptedFault[] = [];
  readonly #secrets = new Set<string>();
  readonly #handle: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>;
  #server: Server | undefined;
  #url = '';

  constructor(handle: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>) {
    this.#handle = handle;
  }

  get url(): string {
    if (!this.#url) throw new Error('The fake is not started');
    return this.#url;
  }

  /** Values that must never be recorded (tokens the fake accepts or issues). */
  addSecret(secret: string): void {
    this.#secrets.add(secret);
  }

  fail(fault: ScriptedFault): void {
    this.#faults.push({ times: 1, ...fault });
  }

  async start(): Promise<string> {
    this.#server = createServer((req, res) => {
      this.#serve(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `fake failed: ${String(error)}` }));
      });
    });
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}`;
    return this.#url;
  }

  async stop(): Promise<void> {
    if (!this.#server) return;
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, 'close');
  }

  /** Every recorded request as one string, for "the token appears nowhere" assertions. */
  recordedText(): string {
    return JSON.stringify(this.requests);
  }

  #redact(text: string, where: string): string {
    let result = text;
    for (const secret of this.#secrets) {
      if (!result.includes(secret)) continue;
      this.secretLeaks.push(where);
      result = result.split(secret).join('[REDACTED]');
    }
    return result;
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const parsed = new URL(req.url ?? '/', 'http://fake');
    const segments = parsed.pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
    let json: unknown;
    let answer: FakeAnswer;
    try {
      json = raw === '' ? undefined : JSON.parse(raw);
      answer =
        this.#takeFault(req.method ?? 'GET', parsed.pathname) ??
        (await this.#handle({
          method: req.method ?? 'GET',
          segments,
          query: parsed.searchParams,
          headers: req.headers,
          json,
        }));
    } catch {
      answer = { status: 400, body: { message: 'Problems parsing JSON' } };
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : value;
      headers[name] = CREDENTIAL_HEADERS.has(name)
        ? redactCredential(text)
        : this.#redact(text, `${req.method} ${parsed.pathname}: header ${name}`);
    }
    this.requests.push({
      method: req.method ?? 'GET',
      url: this.#redact(req.url ?? '/', `${req.method} ${parsed.pathname}: URL`),
      headers,
      body: this.#redact(raw, `${req.method} ${parsed.pathname}: body`),
      status: answer.status,
    });
    const body =
      answer.text !== undefined ? answer.text : answer.body === undefined ? '' : JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      ...(answer.text !== undefined
        ? { 'content-type': 'text/plain; charset=utf-8' }
        : answer.body === undefined
          ? {}
          : { 'content-type': 'application/json; charset=utf-8' }),
      ...answer.headers,
    });
    res.end(body);
  }

  #takeFault(method: string, path: string): FakeAnswer | undefined {
    const index = this.#faults.findIndex(
      (f) => (!f.method || f.method === method) && (!f.path || f.path.test(path)),
    );
    if (index === -1) return undefined;
    const fault = this.#faults[index]!;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.#faults.splice(index, 1);
    return {
      status: fault.status,
      body: fault.body ?? { message: `scripted ${fault.status}` },
      ...(fault.headers ? { headers: fault.headers } : {}),
    };
  }
}

/** "token abc" → "token [REDACTED]"; a bare value → "[REDACTED]". */
function redactCredential(value: string): string {
  const space = value.indexOf(' ');
  return space === -1 ? '[REDACTED]' : `${value.slice(0, space)} [REDACTED]`;
}

/** The credential in an Authorization header, whatever its scheme ("token", "Bearer", "Basic" password). */
export function presentedCredential(
  headers: IncomingMessage['headers'],
): { scheme: string; value: string } | undefined {
  const header = headers.authorization;
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space === -1) return undefined;
  return { scheme: header.slice(0, space).toLowerCase(), value: header.slice(space + 1).trim() };
}
