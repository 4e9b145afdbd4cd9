// A webhook receiver for tests: a real HTTP server that records every request (method, path,
// headers, the raw body exactly as received) and answers from a script. Built from docwright's
// own webhook contract (docs/webhooks.md): POST, JSON body, docwright-* headers; it checks
// nothing itself, so tests verify signatures independently of the code that made them.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** How to answer one request: a status (and body), a redirect, or no answer at all. */
export type Answer =
  | { status: number; body?: string }
  | { redirectTo: string; status?: 301 | 302 | 307 | 308 }
  | { hang: true };

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Every request, in arrival order. */
  received: ReceivedWebhook[];
  /** Answers for the next requests to path (without the query), in order; then the default. */
  script(path: string, ...answers: Answer[]): void;
  setDefault(answer: Answer): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  defaultAnswer: Answer = { status: 204 },
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const queues = new Map<string, Answer[]>();
  let fallback = defaultAnswer;
  const hanging = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      });
      const path = (request.url ?? '').split('?')[0]!;
      const answer = queues.get(path)?.shift() ?? fallback;
      if ('hang' in answer) {
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      }
      if ('redirectTo' in answer) {
        response.writeHead(answer.status ?? 302, { location: answer.redirectTo }).end();
        return;
      }
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    script: (path, ...answers) => {
      const queue = queues.get(path) ?? [];
      queue.push(...answers);
      queues.set(path, queue);
    },
    setDefault: (answer) => {
      fallback = answer;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
