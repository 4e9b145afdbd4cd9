// Joins the git server to a code-host fake the way one code host is both: a branch pushed over
// git is a branch the API knows. The fakes only know the branches they are told about, so this
// small HTTP proxy sits in front of a fake's API and, before forwarding each request, tells the
// fake every branch the bare repository holds. Clients (the adapters, also in a child process)
// talk to the proxy as if it were the host.
//
// It can also hold a request: forward it (the host acts on it) but never pass the answer back,
// which is how a test kills a worker after the pull request exists and before the worker knows.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface HeldRequest {
  method: string;
  path: string;
  /** The host's answer, which the client never got. */
  status: number;
}

export interface CodeHostLink {
  /** http://127.0.0.1:PORT: use it where the host's address goes. */
  url: string;
  /**
   * From now on, requests that match are forwarded but their answers are kept back (the client
   * waits until it gives up or dies). Resolves at the first such request, once the host answered.
   */
  hold(match: { method: string; path: RegExp }): Promise<HeldRequest>;
  /** Answers normally again (requests held so far stay unanswered until close). */
  release(): void;
  close(): Promise<void>;
}

/** The branches of a bare repository, as the code host would list them. */
export async function branchesOf(bareRepository: string): Promise<string[]> {
  const { stdout } = await run('git', [
    '--git-dir',
    bareRepository,
    'for-each-ref',
    '--format=%(refname:lstrip=2)',
    'refs/heads/',
  ]);
  return stdout.split('\n').filter((line) => line !== '');
}

export async function startCodeHostLink(options: {
  /** The fake's (or Prism's) base address: http://127.0.0.1:PORT. */
  target: string;
  bareRepository: string;
  addBranch: (branch: string) => void;
}): Promise<CodeHostLink> {
  const target = new URL(options.target);
  let holding: { method: string; path: RegExp; arrived: (held: HeldRequest) => void } | null = null;
  const held = new Set<IncomingMessage>();

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    // Only writes (opening or updating a pull request) depend on which branches exist; reads skip
    // the listing, which costs a git process per request.
    if (req.method !== 'GET') {
      try {
        for (const branch of await branchesOf(options.bareRepository)) options.addBranch(branch);
      } catch {
        // A repository being written to may list nothing for an instant; the request still goes on.
      }
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const hold =
      holding !== null && holding.method === req.method && holding.path.test(path) ? holding : null;
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => {
          if (hold) {
            held.add(req);
            hold.arrived({ method: req.method ?? 'GET', path, status: answer.statusCode ?? 0 });
            return;
          }
          const headers = { ...answer.headers };
          delete headers['transfer-encoding'];
          delete headers.connection;
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(Buffer.concat(body));
        });
      },
    );
    upstream.on('error', (error) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `code-host link: ${error.message}` }));
    });
    upstream.end(Buffer.concat(chunks));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    hold(match) {
      return new Promise((resolve) => {
        holding = { ...match, arrived: resolve };
      });
    },
    release() {
      holding = null;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
