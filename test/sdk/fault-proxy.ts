// A reverse proxy in front of the real test server that misbehaves the way a load balancer, a
// network or an older server would: answer 503 or 429 with Retry-After (RFC 9110 §10.2.3,
// §15.6.4) instead of forwarding, answer an HTML error page, cut an event stream
// (text/event-stream, WHATWG HTML §9.2) after a number of events, or rewrite request headers.
// Everything else is forwarded byte for byte, and every request is recorded so tests can see what
// the client sent (Last-Event-ID, query parameters, timing of retries).
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  at: number;
}

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string; body?: string; contentType?: string }
  | { kind: 'cut-stream'; afterEvents: number }
  /** Forwards with these request headers replaced (e.g. an older server that ignores Accept). */
  | { kind: 'rewrite-headers'; headers: Record<string, string> };

export interface FaultProxy {
  url: string;
  requests: RecordedRequest[];
  /** Decides, per request, whether to misbehave; return null to forward it untouched. */
  setFault(rule: (request: RecordedRequest, index: number) => Fault | null): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  let rule: (request: RecordedRequest, index: number) => Fault | null = () => null;
  const server: Server = createServer((req, res) => {
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      at: Date.now(),
    };
    requests.push(recorded);
    const fault = rule(recorded, requests.length - 1);
    if (fault?.kind === 'status') {
      req.resume();
      res.writeHead(fault.status, {
        'content-type': fault.contentType ?? 'text/html',
        ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
      });
      res.end(fault.body ?? `<html><body><h1>${fault.status}</h1></body></html>`);
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: {
          ...req.headers,
          host: upstream.host,
          ...(fault?.kind === 'rewrite-headers' ? fault.headers : {}),
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (fault?.kind !== 'cut-stream') {
          answer.pipe(res);
          return;
        }
        // Pass whole frames; after the Nth event, end the socket without ending the chunked
        // response, as a broken connection would (the client sees the stream cut short).
        let events = 0;
        let pending = '';
        let cut = false;
        answer.setEncoding('utf8');
        answer.on('data', (text: string) => {
          if (cut) return;
          pending += text;
          let end = pending.indexOf('\n\n');
          while (end !== -1 && !cut) {
            const frame = pending.slice(0, end + 2);
            pending = pending.slice(end + 2);
            if (/^id: /m.test(frame)) events++;
            if (events >= fault.afterEvents) {
              cut = true;
              answer.destroy();
              res.write(frame, () => res.socket?.end());
            } else {
              res.write(frame);
            }
            end = pending.indexOf('\n\n');
          }
        });
        answer.on('end', () => {
          if (!cut) res.end();
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setFault(next) {
      rule = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
