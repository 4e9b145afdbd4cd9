// `docwright serve` on the embedded database, run as a real process: the first start prints a
// working key once, later starts never print it, the data directory belongs to the server, and
// SIGTERM/SIGINT stop it cleanly.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  apiGet,
  bannerCredentials,
  CLI,
  cliEnv,
  firstStartCredentials,
  logLines,
  runCli,
  type ServerProcess,
  STACK_LINE,
  startServer,
  tempDataDir,
  textLines,
} from './cli-process.ts';

describe('docwright serve on PGlite', () => {
  const dataDir = tempDataDir();
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  let server: ServerProcess;
  let credentials: { projectId: string; key: string };

  before(async () => {
    server = await startServer(env);
  });
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  test('without a terminal, the first start writes its key to an owner-only file and prints only its path', () => {
    const file = join(dataDir, 'first-start-key.txt');
    const text = textLines(server.stdout()).join('\n');
    assert.ok(text.includes(`  ${file}\n`), text);
    assert.equal(logLines(server.stdout()).find((l) => l.msg === 'listening')?.firstStartFile, file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const found = firstStartCredentials(server.stdout());
    assert.ok(found, `no export lines in ${file}`);
    credentials = found;
    const written = readFileSync(file, 'utf8');
    assert.match(written, new RegExp(`Project ID: +${credentials.projectId}`));
    assert.match(written, new RegExp(`API key: +${credentials.key}`));
    assert.match(written, /shown once: store it now/);
    assert.ok(written.includes(`API docs:    ${server.url}/docs`), written);
    assert.ok(written.includes(`docwright projects update ${credentials.projectId} --repository`), written);
    assert.ok(text.includes(`Database:  PGlite (embedded) in ${join(dataDir, 'pgdata')}`), text);
    assert.doesNotMatch(server.stdout(), /dw_[0-9A-Za-z]{38}/);
    assert.doesNotMatch(server.stdout(), /#code=/);
    // The dashboard's one-time setup link goes to a file of its own.
    const setup = join(dataDir, 'dashboard-setup-link.txt');
    assert.ok(text.includes(`  ${setup}\n`), text);
    assert.equal(statSync(setup).mode & 0o777, 0o600);
    assert.match(readFileSync(setup, 'utf8'), /\/app\/setup#code=[A-Za-z0-9_-]{43}\n/);
  });

  test('the banner comes after the log lines of the start, so it is the last thing printed', () => {
    const lines = server.stdout().split('\n');
    const listening = lines.findIndex((l) => l.startsWith('{') && JSON.parse(l).msg === 'listening');
    const banner = lines.findIndex((l) => l.startsWith('docwright is running at '));
    assert.ok(listening >= 0 && banner > listening, server.stdout());
  });

  test('the key never reaches the JSON logs or stderr', () => {
    const logs = logLines(server.stdout());
    assert.ok(logs.some((l) => l.msg === 'listening'));
    for (const line of logs) assert.ok(!JSON.stringify(line).includes(credentials.key), JSON.stringify(line));
    assert.ok(!server.stderr().includes(credentials.key));
  });

  test('the key works on the HTTP API at once', async () => {
    const health = await apiGet(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });

    const jobs = await apiGet(`${server.url}/v2/agent/${credentials.projectId}/jobs`, credentials.key);
    assert.equal(jobs.status, 200);
    assert.deepEqual(await jobs.json(), { jobs: [], nextCursor: null });
    const anonymous = await apiGet(`${server.url}/v2/agent/${credentials.projectId}/jobs`);
    assert.equal(anonymous.status, 401);

    const views = await apiGet(`${server.url}/v1/analytics/${credentials.projectId}/views`, credentials.key);
    assert.notEqual(views.status, 401);
    await views.body?.cancel();

    const docs = await apiGet(`${server.url}/docs/`);
    assert.equal(docs.status, 200);
    await docs.body?.cancel();
  });

  test('the data directory is private and the lockfile names the server, its URL and its socket', () => {
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    const lock = JSON.parse(readFileSync(join(dataDir, 'docwright.lock'), 'utf8'));
    assert.equal(lock.pid, server.pid);
    assert.equal(lock.command, 'serve');
    assert.equal(lock.url, server.url);
    assert.equal(lock.controlSocket, join(dataDir, 'control.sock'));
    const socket = statSync(lock.controlSocket);
    assert.ok(socket.isSocket());
    assert.equal(socket.mode & 0o777, 0o600);
  });

  test('migrate while the server runs stops with a message naming the server', async () => {
    const result = await runCli(['migrate'], env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`"docwright serve" \\(pid ${server.pid} `));
    assert.ok(result.stderr.includes(server.url), result.stderr);
    assert.doesNotMatch(result.stderr, STACK_LINE);
  });

  test('a second serve on the same data directory stops at once, naming the first', async () => {
    const result = await runCli(['serve'], env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`pid ${server.pid} `));
    assert.equal(firstStartCredentials(result.stdout), null);
    // The first server is unharmed.
    assert.equal(
      (await apiGet(`${server.url}/v2/agent/${credentials.projectId}/jobs`, credentials.key)).status,
      200,
    );
  });

  test('SIGTERM stops the server with status 0, removes its socket and releases the data directory', async () => {
    const result = await server.stop('SIGTERM');
    assert.equal(result.code, 0, result.stderr);
    const logs = logLines(result.stdout);
    assert.ok(logs.some((l) => l.msg === 'stopped'));
    // The tests above made requests; at the default level none was logged, so no request line
    // scrolls the key off a terminal (they are logged at debug).
    assert.deepEqual(
      logs.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed'),
      [],
    );
    assert.equal(existsSync(join(dataDir, 'docwright.lock')), false);
    assert.equal(existsSync(join(dataDir, 'control.sock')), false);
  });

  test('a later start prints no key, keeps the data, and stops on SIGINT', async () => {
    const again = await startServer(env);
    try {
      assert.equal(firstStartCredentials(again.stdout()), null);
      assert.doesNotMatch(again.stdout(), /dw_[0-9A-Za-z]{38}/);
      assert.doesNotMatch(again.stdout(), /First start/);
      assert.ok(again.stdout().includes(`API docs:  ${again.url}/docs`));
      const jobs = await apiGet(`${again.url}/v2/agent/${credentials.projectId}/jobs`, credentials.key);
      assert.equal(jobs.status, 200, 'the key from the first start still works');
    } finally {
      const result = await again.stop('SIGINT');
      assert.equal(result.code, 0, result.stderr);
    }
    assert.equal(existsSync(join(dataDir, 'docwright.lock')), false);
  });
});

test('configuration errors are all listed at once, by variable name, without a stack trace', async () => {
  const dataDir = tempDataDir();
  try {
    const result = await runCli(
      ['serve'],
      cliEnv({ DOCWRIGHT_DATA_DIR: dataDir, PORT: 'abc', LOG_LEVEL: 'loud', DOCWRIGHT_JOB_RATE_LIMIT: '0' }),
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PORT must be an integer from 0 to 65535; got "abc"/);
    assert.match(result.stderr, /LOG_LEVEL must be one of .*; got "loud"/);
    assert.match(result.stderr, /DOCWRIGHT_JOB_RATE_LIMIT must be/);
    assert.doesNotMatch(result.stderr, STACK_LINE);
    assert.equal(result.stdout, '');
  } finally {
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
});

test('a port in use is a clear error, and the first-start key is not spent on a server that never ran', async () => {
  const dataDir = tempDataDir();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as AddressInfo).port;
  try {
    const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir, PORT: String(port) });
    const result = await runCli(['serve'], env);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.trim(),
      `error: Cannot listen on 127.0.0.1:${port}: the address is already in use (another server on that port?); choose another PORT.`,
    );
    assert.equal(firstStartCredentials(result.stdout), null);
    assert.equal(existsSync(join(dataDir, 'docwright.lock')), false);
    // No demo project yet, so the next successful start still shows its key.
    assert.deepEqual(JSON.parse((await runCli(['projects', 'list', '--json'], env)).stdout), []);
  } finally {
    blocker.close();
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
});

test('on a terminal, the first start prints the key and the setup link last, and writes no file', async (t) => {
  if (spawnSync('script', ['--version']).status !== 0) {
    t.skip('no script(1) from util-linux to give the server a terminal');
    return;
  }
  const dataDir = tempDataDir();
  // script(1) runs the server on a pseudo-terminal, so its stdout is a TTY as in an operator's shell.
  const child = spawn('script', ['-qefc', `'${process.execPath}' '${CLI}' serve`, '/dev/null'], {
    env: cliEnv({ DOCWRIGHT_DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (out += text));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stopAll = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(stopAll, 60_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const look = () => {
        if (/export DOCWRIGHT_API_KEY=dw_\w+\r?\n/.test(out)) resolve();
      };
      child.stdout!.on('data', look);
      exited.then(() => reject(new Error(`serve exited before printing a key:\n${out}`)));
    });
    const text = out.replaceAll('\r\n', '\n');
    const credentials = bannerCredentials(text);
    assert.ok(credentials, text);
    assert.match(text, new RegExp(`API key: +${credentials.key}`));
    assert.match(text, /\/app\/setup#code=[A-Za-z0-9_-]{43}\n/);
    assert.equal(existsSync(join(dataDir, 'first-start-key.txt')), false);
    assert.equal(existsSync(join(dataDir, 'dashboard-setup-link.txt')), false);
    // Nothing after the key's export line: it is the last thing on the screen.
    assert.match(text, /export DOCWRIGHT_API_KEY=dw_\w+\n\n?$/);
  } finally {
    clearTimeout(timer);
    stopAll();
    await exited;
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
});
