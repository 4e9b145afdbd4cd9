// Graceful shutdown of a real `docwright serve`: a request in flight when SIGTERM arrives is
// still answered, and a second signal exits at once.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  cliEnv,
  firstStartCredentials,
  logLines,
  type ServerProcess,
  startServer,
  tempDataDir,
} from './cli-process.ts';

/** Resolves once the server's stdout holds a log line with this message (count-th of them). */
async function logged(server: ServerProcess, msg: string, count = 1): Promise<void> {
  while (logLines(server.stdout()).filter((l) => l.msg === msg).length < count) {
    if (server.child.exitCode !== null) throw new Error(`server exited before logging "${msg}"`);
    await sleep(20);
  }
}

/** Starts POST .../job with only half of its body sent; finish() sends the rest. */
function halfSentJobRequest(server: ServerProcess, projectId: string, key: string) {
  const body = JSON.stringify({ prompt: 'Fix the typo in the install guide.' });
  const half = Math.floor(body.length / 2);
  let finish = () => {};
  const answer = new Promise<{ status: number; body: string; connection: string | undefined }>(
    (resolve, reject) => {
      const req = request(`${server.url}/v2/agent/${projectId}/job`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (t: string) => (text += t));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }),
        );
      });
      req.on('error', reject);
      req.write(body.slice(0, half));
      finish = () => req.end(body.slice(half));
    },
  );
  return { answer, finish: () => finish() };
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} lets a request in flight finish, then exits 0`, async () => {
    const dataDir = tempDataDir();
    const server = await startServer(cliEnv({ DOCWRIGHT_DATA_DIR: dataDir, LOG_LEVEL: 'debug' }));
    try {
      const { projectId, key } = firstStartCredentials(server.stdout())!;
      const inFlight = halfSentJobRequest(server, projectId, key);
      await logged(server, 'incoming request');
      // Request lines are logged at debug (20), hence LOG_LEVEL=debug for these servers.
      assert.equal(logLines(server.stdout()).find((l) => l.msg === 'incoming request')?.level, 20);
      server.child.kill(signal);
      await logged(server, 'shutting down');
      inFlight.finish();
      const answer = await inFlight.answer;
      assert.equal(answer.status, 201, answer.body);
      assert.match(JSON.parse(answer.body).id, /^job_/);
      // So the client's keep-alive connection does not hold the shutdown open after the answer.
      assert.equal(answer.connection, 'close');
      const exit = await server.exited;
      assert.equal(exit.code, 0, exit.stderr);
    } finally {
      await server.stop('SIGKILL');
      rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  });
}

test('a second signal exits at once, without waiting for requests in flight', async () => {
  const dataDir = tempDataDir();
  const server = await startServer(cliEnv({ DOCWRIGHT_DATA_DIR: dataDir, LOG_LEVEL: 'debug' }));
  try {
    const { projectId, key } = firstStartCredentials(server.stdout())!;
    const inFlight = halfSentJobRequest(server, projectId, key);
    inFlight.answer.catch(() => {}); // the connection is cut
    await logged(server, 'incoming request');
    server.child.kill('SIGTERM');
    await logged(server, 'shutting down');
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    assert.equal(exit.code, 128 + 15);
    assert.ok(logLines(exit.stdout).some((l) => l.msg === 'second signal: exiting without waiting'));
  } finally {
    await server.stop('SIGKILL');
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
});
