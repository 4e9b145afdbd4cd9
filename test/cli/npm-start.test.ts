// `npm start` under a supervisor or `kill <pid>`: a signal to npm's process must stop docwright
// gracefully (node gone, data directory released), not leave it running as an orphan.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { lockFilePath } from '../../src/db/data-dir-lock.ts';
import { cliEnv, firstStartCredentials, logLines, tempDataDir } from './cli-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, done: () => boolean, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface NpmStart {
  npm: ChildProcess;
  /** The node process serving, as named in the data directory's lockfile. */
  nodePid: number;
  dataDir: string;
  stdout(): string;
  npmExited: Promise<void>;
}

/** Runs `npm start` in the repository against a fresh data directory, until it listens. */
async function npmStart(): Promise<NpmStart> {
  const dataDir = tempDataDir();
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    // debug: the Ctrl-C case waits for the request's log line.
    env: cliEnv({ DOCWRIGHT_DATA_DIR: dataDir, LOG_LEVEL: 'debug' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout!.setEncoding('utf8').on('data', (t: string) => (out += t));
  npm.stderr!.setEncoding('utf8').on('data', (t: string) => (out += t));
  // 'exit', not 'close': an orphaned node keeps npm's output pipes open.
  const npmExited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  const listening = () => out.split('\n').some((line) => line.includes('"msg":"listening"'));
  await until('npm start to listen', () => listening() || npm.exitCode !== null, START_TIMEOUT_MS);
  assert.ok(listening(), out);
  const holder = JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as { pid: number };
  assert.notEqual(holder.pid, npm.pid, 'node serves, npm only started it');
  return { npm, nodePid: holder.pid, dataDir, stdout: () => out, npmExited };
}

/** POST .../job with all headers and half its body sent; finish() sends the rest. */
function holdRequest(baseUrl: string, credentials: { projectId: string; key: string }): { finish(): void } {
  const { hostname, port } = new URL(baseUrl);
  const body = JSON.stringify({ prompt: 'Fix the typo in the install guide.' });
  const half = Math.floor(body.length / 2);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.on('data', () => {});
  socket.write(
    `POST /v2/agent/${credentials.projectId}/job HTTP/1.1\r\nHost: ${hostname}\r\n` +
      `Authorization: Bearer ${credentials.key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  return { finish: () => socket.end(body.slice(half)) };
}

async function cleanUp(started: NpmStart | null): Promise<void> {
  if (started === null) return;
  if (isRunning(started.nodePid)) process.kill(started.nodePid, 'SIGKILL');
  if (started.npm.exitCode === null) started.npm.kill('SIGKILL');
  rmSync(dirname(started.dataDir), { recursive: true, force: true });
}

async function expectStoppedGracefully(started: NpmStart): Promise<void> {
  await until(
    'npm to exit',
    () => started.npm.exitCode !== null || started.npm.signalCode !== null,
    STOP_TIMEOUT_MS,
  );
  await started.npmExited;
  await until('node to exit', () => !isRunning(started.nodePid), STOP_TIMEOUT_MS);
  assert.ok(!existsSync(lockFilePath(started.dataDir)), 'the data directory is released');
  const stopped = logLines(
    started
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .join('\n'),
  ).some((line) => line.msg === 'stopped');
  assert.ok(stopped, `docwright logged that it stopped:\n${started.stdout()}`);
}

describe('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} to npm's pid stops docwright and releases the data directory`, async () => {
      let started: NpmStart | null = null;
      try {
        started = await npmStart();
        started.npm.kill(signal);
        await expectStoppedGracefully(started);
      } finally {
        await cleanUp(started);
      }
    });
  }

  test('Ctrl-C in a terminal (SIGINT to node, and npm passing its copy on) still stops gracefully', async () => {
    let started: NpmStart | null = null;
    try {
      started = await npmStart();
      const running = started;
      // A request in flight keeps the graceful shutdown going while npm's copy arrives.
      const url = /"url":"(http:[^"]+)"/.exec(running.stdout())![1]!;
      const held = holdRequest(url, firstStartCredentials(running.stdout())!);
      await until(
        'the request to arrive',
        () => running.stdout().includes('"msg":"incoming request"'),
        STOP_TIMEOUT_MS,
      );
      // A terminal signals its whole foreground process group, and npm passes its copy on too.
      // Two signals that arrive together merge into one, so the copy is sent once docwright has
      // begun to shut down: the order in which it counts as a second signal unless recognised.
      process.kill(running.nodePid, 'SIGINT');
      await until(
        'docwright to begin shutting down',
        () => running.stdout().includes('"msg":"shutting down"'),
        STOP_TIMEOUT_MS,
      );
      running.npm.kill('SIGINT');
      // npm's copy reaches docwright (a signal npm forwards is delivered before npm returns to us).
      await sleep(500);
      held.finish();
      await expectStoppedGracefully(running);
    } finally {
      await cleanUp(started);
    }
  });
});
