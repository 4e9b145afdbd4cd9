// Runs Prism (@stoplight/prism-cli) in proxy mode in front of a stand-in, so that every request a
// real client sends and every answer the stand-in gives is checked against an OpenAPI description.
// With --errors, a request that breaks the description is answered 422 by Prism itself (never
// reaching the stand-in) and a non-conforming answer is replaced by a 500; Prism also logs each
// violation, including the ones it only warns about (e.g. an undeclared status code). Tests call
// violations() and expect it empty: a warning is a failure too.
//
// Prism starts as a child process of this Node on a free port; start() returns once it listens.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';

export interface PrismProxy {
  url: string;
  /**
   * Every violation and refused request Prism logged so far. Prism logs after it answers, so this
   * first sends a marker request and waits until its log line is out: everything before it is too.
   */
  violations(): Promise<string[]>;
  /** Prism's whole log, for failure messages. */
  log(): string;
  /** Forgets what was logged (between tests). */
  clear(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const PROBLEM_LINE = /Violation:|Request terminated with error|errors#/;

export async function startPrismProxy(
  specFile: string,
  upstreamUrl: string,
  timeoutMs = 60_000,
): Promise<PrismProxy> {
  // The free port is found by this process and then taken by Prism's: another process can take
  // it in between (seen in CI, EADDRINUSE), so a lost race is retried on a new port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPrismOnce(specFile, upstreamUrl, timeoutMs);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 5) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startPrismOnce(specFile: string, upstreamUrl: string, timeoutMs: number): Promise<PrismProxy> {
  const require = createRequire(import.meta.url);
  const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, 'proxy', specFile, upstreamUrl, '--errors', '--host', '127.0.0.1', '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let startedAt = 0;

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Prism did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const message = `Prism exited with ${code} before listening:\n${output}`;
      reject(output.includes('EADDRINUSE') ? new PortTakenError(message) : new Error(message));
    });
  });
  startedAt = output.length;
  const url = `http://127.0.0.1:${port}`;
  let markers = 0;

  const settle = async () => {
    const marker = `/__docwright_log_marker_${++markers}`;
    await fetch(`${url}${marker}`).then((r) => r.arrayBuffer());
    const deadline = Date.now() + 10_000;
    // The marker's own "terminated" line is the last one Prism writes for it.
    while (!new RegExp(`${marker}\\b.*terminated`).test(output)) {
      if (Date.now() > deadline)
        throw new Error(`Prism did not log the marker request:\n${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  return {
    url,
    violations: async () => {
      await settle();
      return output
        .slice(startedAt)
        .split('\n')
        .filter((line) => PROBLEM_LINE.test(line) && !line.includes('/__docwright_log_marker_'));
    },
    log: () => output,
    clear: () => {
      startedAt = output.length;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.removeAllListeners('exit');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
