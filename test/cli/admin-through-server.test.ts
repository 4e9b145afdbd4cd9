// While `docwright serve` holds the embedded database, the admin commands run inside it, through
// its control socket: their effects are visible on the HTTP API at once.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  apiGet,
  cliEnv,
  firstStartCredentials,
  logLines,
  runCli,
  runJson,
  type ServerProcess,
  STACK_LINE,
  startServer,
  tempDataDir,
} from './cli-process.ts';

interface CreatedKey {
  id: string;
  key: string;
  projectId: string;
  name: string;
  scope: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
}

describe('admin commands through a running server', () => {
  const dataDir = tempDataDir();
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  let server: ServerProcess;
  let projectId: string;
  /** Every key the tests saw, to check none is ever printed again or logged. */
  const keysSeen: string[] = [];

  const jobsStatus = async (key: string, project = projectId) => {
    const res = await apiGet(`${server.url}/v2/agent/${project}/jobs`, key);
    await res.body?.cancel();
    return res.status;
  };
  const adminCommandsLogged = () => logLines(server.stdout()).filter((l) => l.msg === 'admin command');

  before(async () => {
    server = await startServer(env);
    const first = firstStartCredentials(server.stdout());
    assert.ok(first);
    projectId = first.projectId;
    keysSeen.push(first.key);
  });
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  test('keys create --json prints one object whose key works on the API immediately', async () => {
    const before = adminCommandsLogged().length;
    const result = await runCli(['keys', 'create', '--project', projectId, '--name', 'ci', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim().split('\n').length, 1, 'exactly one line of JSON');
    const created = JSON.parse(result.stdout) as CreatedKey;
    assert.deepEqual(Object.keys(created), [
      'id',
      'key',
      'projectId',
      'name',
      'scope',
      'prefix',
      'createdAt',
      'expiresAt',
    ]);
    assert.match(created.id, /^key_[0-9A-Za-z]{16}$/);
    assert.match(created.key, /^dw_[0-9A-Za-z]{38}$/);
    assert.equal(created.projectId, projectId);
    assert.equal(created.name, 'ci');
    assert.equal(created.scope, 'admin');
    assert.ok(created.key.startsWith(created.prefix) && created.prefix.length < created.key.length);
    assert.ok(!Number.isNaN(Date.parse(created.createdAt)));
    assert.equal(created.expiresAt, null);
    keysSeen.push(created.key);

    assert.equal(await jobsStatus(created.key), 200);
    const logged = adminCommandsLogged().slice(before);
    assert.deepEqual(
      logged.map((l) => l.command),
      ['keys create'],
      'the server ran the command',
    );
  });

  test('keys revoke makes the key answer 401 immediately', async () => {
    const created = await runJson<CreatedKey>(['keys', 'create', '--project', projectId, '--json'], env);
    keysSeen.push(created.key);
    assert.equal(await jobsStatus(created.key), 200);

    const result = await runCli(['keys', 'revoke', created.id], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`Revoked key ${created.id}`));
    assert.equal(await jobsStatus(created.key), 401);
  });

  test('keys create with a scope and an expiry; a read key may read', async () => {
    const created = await runJson<CreatedKey>(
      ['keys', 'create', '--project', projectId, '--scope', 'read', '--expires', '30d', '--json'],
      env,
    );
    keysSeen.push(created.key);
    assert.equal(created.scope, 'read');
    const days = (Date.parse(created.expiresAt!) - Date.parse(created.createdAt)) / 86_400_000;
    assert.ok(Math.abs(days - 30) < 0.01, `expires about 30 days after creation, got ${days}`);
    assert.equal(await jobsStatus(created.key), 200);
  });

  test('keys create without --json shows the key once, with a warning', async () => {
    const result = await runCli(['keys', 'create', '--project', projectId, '--name', 'laptop'], env);
    assert.equal(result.code, 0, result.stderr);
    const key = /^ {2}(dw_[0-9A-Za-z]{38})$/m.exec(result.stdout)?.[1];
    assert.ok(key, result.stdout);
    keysSeen.push(key);
    assert.equal(result.stdout.split(key).length - 1, 1);
    assert.match(result.stdout, /will not be shown again/);
    assert.equal(await jobsStatus(key), 200);
  });

  test('keys list shows prefixes and statuses, never a key', async () => {
    const list = await runCli(['keys', 'list', '--project', projectId, '--json'], env);
    assert.equal(list.code, 0, list.stderr);
    const keys = JSON.parse(list.stdout) as Record<string, unknown>[];
    assert.equal(keys.length, keysSeen.length);
    for (const k of keys) {
      assert.equal('key' in k, false);
      assert.match(k.prefix as string, /^dw_[0-9A-Za-z]{8}$/);
    }
    assert.equal(keys.filter((k) => k.revokedAt !== null).length, 1);

    const text = await runCli(['keys', 'list', '--project', projectId], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^ID +NAME +SCOPE +PREFIX +STATUS/);
    assert.match(text.stdout, /revoked/);
    for (const key of keysSeen) {
      assert.ok(!list.stdout.includes(key) && !text.stdout.includes(key), 'a key was printed by keys list');
      assert.ok(text.stdout.includes(`${key.slice(0, 11)}…`), 'each key is listed by its prefix');
    }
  });

  test('projects create, list and update --json go through the server', async () => {
    const created = await runJson<Record<string, unknown>>(
      [
        'projects',
        'create',
        '--name',
        'Handbook',
        '--repository',
        'https://git.example.com/acme/handbook',
        '--ref',
        'trunk',
        '--code-host',
        'gitea',
        '--code-host-url',
        'https://git.example.com',
        '--model',
        'openai:gpt-4.1',
        '--json',
      ],
      env,
    );
    assert.match(created.id as string, /^prj_[0-9A-Za-z]{16}$/);
    assert.deepEqual(
      { ...created, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        name: 'Handbook',
        repositoryUrl: 'https://git.example.com/acme/handbook',
        ref: 'trunk',
        codeHost: { kind: 'gitea', baseUrl: 'https://git.example.com', apiUrl: null },
        model: 'openai:gpt-4.1',
        settings: {},
        createdAt: undefined,
        updatedAt: undefined,
      },
    );

    const listed = await runJson<{ id: string; name: string }[]>(['projects', 'list', '--json'], env);
    assert.deepEqual(listed.map((p) => p.id).sort(), [projectId, created.id as string].sort());

    const updated = await runJson<Record<string, unknown>>(
      [
        'projects',
        'update',
        created.id as string,
        '--name',
        'Staff handbook',
        '--model',
        '',
        '--setting',
        'draftPullRequests=true',
        '--setting',
        'deniedPaths=["legal/**"]',
        '--json',
      ],
      env,
    );
    assert.equal(updated.name, 'Staff handbook');
    assert.equal(updated.model, null, 'an empty --model returns to the server default');
    assert.equal(updated.ref, 'trunk', 'fields not given keep their values');
    assert.deepEqual(updated.settings, { draftPullRequests: true, deniedPaths: ['legal/**'] });

    const removed = await runJson<Record<string, unknown>>(
      ['projects', 'update', created.id as string, '--setting', 'draftPullRequests=null', '--json'],
      env,
    );
    assert.deepEqual(removed.settings, { deniedPaths: ['legal/**'] });

    // The server's API sees the new project: a key for it works there.
    const key = await runJson<CreatedKey>(
      ['keys', 'create', '--project', created.id as string, '--json'],
      env,
    );
    keysSeen.push(key.key);
    assert.equal(await jobsStatus(key.key, created.id as string), 200);
    assert.equal(await jobsStatus(key.key, projectId), 403, 'and only for its own project');
  });

  test("the services' errors come back from the server: message on stderr, exit 1, no stack", async () => {
    const unknown = await runCli(['projects', 'update', 'prj_doesnotexist', '--name', 'x'], env);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr.trim(), 'error: No project has the id "prj_doesnotexist".');

    const invalid = await runCli(
      ['projects', 'create', '--name', ' ', '--repository', 'https://u:p@github.com/a/b'],
      env,
    );
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /name must be 1 to 200 characters/);
    assert.match(invalid.stderr, /must not contain a user name or password/);
    assert.ok(!invalid.stderr.includes('u:p@'), 'the credentials are not echoed');
    assert.doesNotMatch(invalid.stderr, STACK_LINE);

    const revokeUnknown = await runCli(['keys', 'revoke', 'key_doesnotexist'], env);
    assert.equal(revokeUnknown.code, 1);
    assert.match(revokeUnknown.stderr, /No API key has the id "key_doesnotexist"/);

    const badSetting = await runCli(['projects', 'update', projectId, '--setting', 'maxSteps=0'], env);
    assert.equal(badSetting.code, 1);
    assert.match(badSetting.stderr, /settings\.maxSteps/);

    const pastExpiry = await runCli(
      ['keys', 'create', '--project', projectId, '--expires', '2001-01-01'],
      env,
    );
    assert.equal(pastExpiry.code, 1);
    assert.match(pastExpiry.stderr, /expiry must be in the future/);
  });

  test('no key ever reaches the server log', () => {
    const out = server.stdout();
    const logs = logLines(out).map((l) => JSON.stringify(l));
    for (const key of keysSeen) {
      for (const line of logs) assert.ok(!line.includes(key), `a key in the log: ${line}`);
    }
    assert.ok(!server.stderr().includes('dw_'));
  });
});

test('serve and an admin command started together both succeed, whichever takes the directory first', async () => {
  const dataDir = tempDataDir();
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  // Create the database first, so both processes race for the lock rather than for initdb.
  assert.equal((await runCli(['migrate'], env)).code, 0);
  const [server, created] = await Promise.all([
    startServer(env),
    runJson<{ id: string }>(
      ['projects', 'create', '--name', 'Race', '--repository', 'https://github.com/a/race', '--json'],
      env,
    ),
  ]);
  try {
    const listed = await runJson<{ id: string }[]>(['projects', 'list', '--json'], env);
    assert.ok(listed.some((p) => p.id === created.id));
  } finally {
    assert.equal((await server.stop('SIGTERM')).code, 0);
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
});
