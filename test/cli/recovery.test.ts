// The embedded database after a crash, and data directories too deep for a unix socket path.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import {
  apiGet,
  cliEnv,
  firstStartCredentials,
  logLines,
  runCli,
  runJson,
  startServer,
  tempDataDir,
} from './cli-process.ts';

test('after a server is killed (kill -9), commands and a new server take the data directory over', async () => {
  const dataDir = tempDataDir();
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  try {
    const crashed = await startServer(env);
    const first = firstStartCredentials(crashed.stdout());
    assert.ok(first);
    assert.equal((await crashed.stop('SIGKILL')).signal, 'SIGKILL');
    assert.ok(existsSync(join(dataDir, 'docwright.lock')), 'the dead server left its lock');
    assert.ok(existsSync(join(dataDir, 'control.sock')), 'and its socket');

    // The dead holder's socket refuses connections: the command runs on the database itself.
    const projects = await runJson<{ id: string }[]>(['projects', 'list', '--json'], env);
    assert.deepEqual(
      projects.map((p) => p.id),
      [first.projectId],
    );

    const server = await startServer(env);
    try {
      assert.equal(firstStartCredentials(server.stdout()), null);
      assert.equal((await apiGet(`${server.url}/v2/agent/${first.projectId}/jobs`, first.key)).status, 200);
      const created = await runJson<{ key: string }>(
        ['keys', 'create', '--project', first.projectId, '--json'],
        env,
      );
      assert.equal((await apiGet(`${server.url}/v2/agent/${first.projectId}/jobs`, created.key)).status, 200);
      assert.ok(
        logLines(server.stdout()).some((l) => l.msg === 'admin command'),
        'it went through the new server',
      );
    } finally {
      assert.equal((await server.stop('SIGTERM')).code, 0);
    }
  } finally {
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
});

test('a data directory too deep for a unix socket path gets its socket in a private temp directory', async () => {
  const dataDir = join(tempDataDir(), 'a-rather-long-directory-name-'.repeat(4));
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  try {
    const server = await startServer(env);
    const first = firstStartCredentials(server.stdout());
    assert.ok(first);
    const socket = JSON.parse(readFileSync(join(dataDir, 'docwright.lock'), 'utf8')).controlSocket as string;
    assert.ok(!socket.startsWith(dataDir), socket);
    assert.equal(statSync(dirname(socket)).mode & 0o777, 0o700);
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    try {
      const created = await runJson<{ key: string }>(
        ['keys', 'create', '--project', first.projectId, '--json'],
        env,
      );
      assert.equal((await apiGet(`${server.url}/v2/agent/${first.projectId}/jobs`, created.key)).status, 200);
    } finally {
      assert.equal((await server.stop('SIGTERM')).code, 0);
    }
    assert.equal(existsSync(dirname(socket)), false, 'the private directory is removed at shutdown');
    const after = await runCli(['projects', 'list', '--json'], env);
    assert.equal(after.code, 0, after.stderr);
  } finally {
    rmSync(dirname(dirname(dataDir)), { recursive: true, force: true });
  }
});
