// One outbound HTTP request to an address a user or a visitor chose: the policy's scheme and
// address checks, the address checked at connect time (guarded lookup; IP literals before
// connecting; the connected socket's address once more), one deadline for the whole exchange, a
// cap on the bytes read, and no redirects followed (a 3xx is returned as it is). Node's http and
// https clients rather than fetch, because they take a lookup function.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { guardedLookup } from './guarded-lookup.ts';
import {
  addressRefused,
  checkUrlShape,
  hostOf,
  type OutboundPolicy,
  OutboundRefusedError,
} from './policy.ts';
import { isSpecialPurposeAddress } from './special-addresses.ts';

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Text is sent as UTF-8; bytes as they are (a git pack). */
  body?: string | Buffer;
  /** The whole exchange (connect, send, the answer up to maxBytes) must fit in this. */
  timeoutMs: number;
  /** Read at most this many bytes of the answer's body; the rest is not read. */
  maxBytes: number;
  policy: OutboundPolicy;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most maxBytes. */
  body: Buffer;
  /** The answer was longer than maxBytes (declared or sent). */
  truncated: boolean;
}

/** The request was allowed but did not complete: timeout, refused connection, TLS error... */
export class OutboundFailedError extends Error {
  readonly timedOut: boolean;
  constructor(message: string, timedOut = false) {
    super(message);
    this.name = 'OutboundFailedError';
    this.timedOut = timedOut;
  }
}

/**
 * Sends the request. Throws OutboundRefusedError when the policy refuses the URL or the address
 * (nothing was sent), OutboundFailedError when it did not complete.
 */
export function outboundRequest(target: string | URL, request: OutboundRequest): Promise<OutboundResponse> {
  const { policy } = request;
  let url: URL;
  try {
    url = checkUrlShape(target, policy);
    const host = hostOf(url);
    if (!policy.allowPrivateAddresses && isIP(host) !== 0 && isSpecialPurposeAddress(host)) {
      throw addressRefused(policy, host, host);
    }
  } catch (error) {
    return Promise.reject(error);
  }
  const client = url.protocol === 'https:' ? https : http;
  const body = request.body;
  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: { response: OutboundResponse } | { error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.signal?.removeEventListener('abort', onAbort);
      outgoing.destroy();
      if ('response' in outcome) resolve(outcome.response);
      else reject(outcome.error);
    };
    const outgoing = client.request(
      url,
      {
        method: request.method ?? 'GET',
        headers: {
          ...request.headers,
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        agent: false, // a fresh connection each time: nothing pooled across hosts or checks
        ...(policy.allowPrivateAddresses ? {} : { lookup: guardedLookup(policy) }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let read = 0;
        const declared = Number(response.headers['content-length']);
        let truncated = Number.isFinite(declared) && declared > request.maxBytes;
        const finish = () =>
          settle({
            response: {
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).subarray(0, request.maxBytes),
              truncated,
            },
          });
        if (truncated) {
          finish();
          return;
        }
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          read += chunk.length;
          if (read > request.maxBytes) {
            truncated = true;
            finish();
          }
        });
        response.on('end', finish);
        response.on('error', (error) => settle({ error: new OutboundFailedError(error.message) }));
      },
    );
    // Belt and braces: whatever resolved the name, the connected peer must be allowed too.
    if (!policy.allowPrivateAddresses) {
      outgoing.on('socket', (socket: Socket) => {
        socket.once('connect', () => {
          const peer = socket.remoteAddress;
          if (peer !== undefined && isSpecialPurposeAddress(peer)) {
            settle({ error: addressRefused(policy, hostOf(url), peer) });
          }
        });
      });
    }
    const seconds = Math.round(request.timeoutMs / 100) / 10;
    const deadline = setTimeout(() => {
      settle({ error: new OutboundFailedError(`no answer within ${seconds} s`, true) });
    }, request.timeoutMs);
    const onAbort = () => settle({ error: new OutboundFailedError('the request was aborted') });
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error: Error) => {
      if (error instanceof OutboundRefusedError) settle({ error });
      // Node's messages name the code and the address (connect ECONNREFUSED 10.0.0.1:443), never
      // the URL's path or query, which may carry a receiver's token.
      else settle({ error: new OutboundFailedError(`the request failed: ${error.message}`) });
    });
    outgoing.end(body);
  });
}
