// `docwright serve` on the embedded database, run as a real process: the first start prints a
// working key once, later starts never print it, the data directory belongs to the server, and
// SIGTERM/SIGINT stop it cleanly.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  apiGet,
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

  test('the first start prints a projectId and an admin key, once, with the docs URL', () => {
    const found = firstStartCredentials(server.stdout());
    assert.ok(found, `no export lines in:\n${server.stdout()}`);
    credentials = found;
    const text = textLines(server.stdout()).join('\n');
    assert.match(text, new RegExp(`Project ID: +${credentials.projectId}`));
    assert.match(text, new RegExp(`API key: +${credentials.key}`));
    assert.match(text, /shown once: store it now/);
    assert.ok(text.includes(`API docs:    ${server.url}/docs`), text);
    assert.ok(text.includes(`docwright projects update ${credentials.projectId} --repository`), text);
    assert.ok(text.includes(`Database:  PGlite (embedded) in ${join(dataDir, 'pgdata')}`), text);
    assert.equal(
      text.split(credentials.key).length - 1,
      2,
      'the key appears in the banner and its export line only',
    );
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
    assert.ok(logLines(result.stdout).some((l) => l.msg === 'stopped'));
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
