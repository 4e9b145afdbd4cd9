// The CLI with DATABASE_URL: every command opens PostgreSQL directly (no data-directory lock, no
// control socket), migrations are safe twice and at once, and the URL never appears in output.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createPostgresDatabase, postgresAvailability } from '../helpers/databases.ts';
import {
  apiGet,
  cliEnv,
  firstStartCredentials,
  logLines,
  runCli,
  runJson,
  STACK_LINE,
  startServer,
  tempDataDir,
} from './cli-process.ts';

// In CI an unreachable server fails the run instead of skipping.
const { problem: unreachable, skip } = await postgresAvailability();

/** The database URL with a password that trust authentication ignores, to check it never leaks. */
function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

describe('the CLI on PostgreSQL', { skip }, () => {
  const password = `pw${randomBytes(6).toString('hex')}`;
  const secretKey = randomBytes(32).toString('hex');
  const dataDir = tempDataDir();
  let database: { url: string; drop: () => Promise<void> };
  let env: NodeJS.ProcessEnv;

  before(async () => {
    if (unreachable) throw new Error(`${unreachable}; CI=true requires it`);
    database = await createPostgresDatabase();
    env = cliEnv({
      DOCWRIGHT_DATA_DIR: dataDir,
      DATABASE_URL: withPassword(database.url, password),
      DOCWRIGHT_SECRET_KEY: secretKey,
    });
  });
  after(async () => {
    await database?.drop();
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  test('two migrate at once on a fresh database both succeed, and a third finds nothing to do', async () => {
    const [a, b] = await Promise.all([runCli(['migrate'], env), runCli(['migrate'], env)]);
    for (const result of [a, b]) {
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Database schema is up to date at version \d+ \(init/);
    }
    const again = await runCli(['migrate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, a.stdout);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version',
      );
      assert.ok(rows.length > 0);
      for (const row of rows) assert.equal(row.n, 1, `migration ${row.version} applied once`);
    } finally {
      await client.end();
    }
  });

  test('DOCWRIGHT_SECRET_KEY is required with DATABASE_URL, and the URL is never echoed', async () => {
    const { DOCWRIGHT_SECRET_KEY: _, ...withoutKey } = env;
    const result = await runCli(['projects', 'list'], withoutKey);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /DOCWRIGHT_SECRET_KEY is required when DATABASE_URL is set/);
    assert.ok(!result.stderr.includes(password));
  });

  test('an unreachable PostgreSQL is a clear error without a stack trace or the password', async () => {
    const result = await runCli(['projects', 'list'], {
      ...env,
      DATABASE_URL: `postgres://postgres:${password}@127.0.0.1:1/nothing`,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot use the database set in DATABASE_URL: connect ECONNREFUSED/);
    assert.doesNotMatch(result.stderr, STACK_LINE);
    assert.ok(!result.stderr.includes(password));
  });

  test('serve and the admin commands share the database; keys take effect at once', async () => {
    const server = await startServer(env);
    try {
      const first = firstStartCredentials(server.stdout());
      assert.ok(first, server.stdout());
      assert.match(server.stdout(), /Database: {2}PostgreSQL \(DATABASE_URL\)/);
      assert.ok(!server.stdout().includes(password) && !server.stderr().includes(password));
      assert.equal((await apiGet(`${server.url}/v2/agent/${first.projectId}/jobs`, first.key)).status, 200);

      // The commands run in their own processes on PostgreSQL, beside the server.
      const project = await runJson<{ id: string }>(
        [
          'projects',
          'create',
          '--name',
          'PG docs',
          '--repository',
          'https://github.com/acme/pg-docs',
          '--json',
        ],
        env,
      );
      const created = await runJson<{ id: string; key: string }>(
        ['keys', 'create', '--project', project.id, '--json'],
        env,
      );
      assert.equal((await apiGet(`${server.url}/v2/agent/${project.id}/jobs`, created.key)).status, 200);
      const listed = await runCli(['keys', 'list', '--project', project.id, '--json'], env);
      assert.ok(!listed.stdout.includes(created.key));
      assert.equal((await runCli(['keys', 'revoke', created.id], env)).code, 0);
      assert.equal((await apiGet(`${server.url}/v2/agent/${project.id}/jobs`, created.key)).status, 401);

      const projects = await runJson<{ id: string }[]>(['projects', 'list', '--json'], env);
      assert.deepEqual(projects.map((p) => p.id).sort(), [first.projectId, project.id].sort());

      // migrate beside a running server is fine on PostgreSQL: it waits for the advisory lock.
      assert.equal((await runCli(['migrate'], env)).code, 0);

      assert.equal(
        logLines(server.stdout()).filter((l) => l.msg === 'admin command').length,
        0,
        'no socket used',
      );
      for (const line of logLines(server.stdout())) {
        const text = JSON.stringify(line);
        assert.ok(!text.includes(first.key) && !text.includes(created.key), text);
      }
    } finally {
      assert.equal((await server.stop('SIGTERM')).code, 0);
    }
    const again = await startServer(env);
    try {
      assert.equal(firstStartCredentials(again.stdout()), null, 'the key is shown on the first start only');
    } finally {
      await again.stop('SIGTERM');
    }
  });
});
