// `docwright projects set-secret | secrets | unset-secret`, through a running server: the value
// comes from stdin, is sealed with the server's key, and never shows up in output or logs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { withSecretKey } from '../../src/config/secret-key-file.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { readProjectSecret } from '../../src/modules/projects/secrets.ts';
import {
  CLI,
  cliEnv,
  firstStartCredentials,
  runCli,
  runJson,
  type ServerProcess,
  startServer,
  tempDataDir,
} from './cli-process.ts';

const SECRET = 'ghp_cliSecretValue0123456789';

function runWithStdin(args: string[], env: NodeJS.ProcessEnv, input: string) {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdin.end(input);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

const dataDir = tempDataDir();
const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
let server: ServerProcess;
let projectId: string;

before(async () => {
  server = await startServer(env);
  projectId = firstStartCredentials(server.stdout())!.projectId;
});
after(async () => {
  await server?.stop('SIGKILL');
  rmSync(dirname(dataDir), { recursive: true, force: true });
});

test('set-secret reads stdin, stores the value sealed through the server, and never prints it', async () => {
  const set = await runWithStdin(['projects', 'set-secret', projectId, 'codeHostToken'], env, `${SECRET}\n`);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /Stored codeHostToken/);
  const listed = await runJson<{ name: string; updatedAt: string }[]>(
    ['projects', 'secrets', projectId, '--json'],
    env,
  );
  assert.deepEqual(
    listed.map((s) => s.name),
    ['codeHostToken'],
  );
  for (const text of [set.stdout, set.stderr, JSON.stringify(listed), server.stdout()]) {
    assert.ok(!text.includes(SECRET));
  }
});

test('unknown names and empty values are refused with a message; unset removes', async () => {
  const bogus = await runWithStdin(['projects', 'set-secret', projectId, 'password'], env, 'x');
  assert.equal(bogus.code, 1);
  assert.match(bogus.stderr, /known secrets: codeHostToken/);
  const empty = await runWithStdin(['projects', 'set-secret', projectId, 'modelApiKey'], env, '\n');
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /empty/);
  await runWithStdin(['projects', 'set-secret', projectId, 'modelApiKey'], env, 'sk-x');
  const unset = await runWithStdin(['projects', 'unset-secret', projectId, 'modelApiKey'], env, '');
  assert.match(unset.stdout, /Removed modelApiKey/);
});

test('moving the repository to another host suspends the token, and update and secrets say so', async () => {
  const moved = await runCli(
    ['projects', 'update', projectId, '--repository', 'https://gitlab.com/example/docs'],
    env,
  );
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(
    moved.stdout,
    /suspended: +codeHostToken, stored for github at https:\/\/github\.com: jobs do not send it to this code host/,
  );
  const secrets = await runCli(['projects', 'secrets', projectId], env);
  assert.match(
    secrets.stdout,
    /codeHostToken +suspended \(stored for github at https:\/\/github\.com; set it again\)/,
  );
  // Back on the host it was stored for, it is usable again.
  const back = await runJson<{ suspendedSecrets: unknown[] }>(
    ['projects', 'update', projectId, '--repository', 'https://github.com/example/docs', '--json'],
    env,
  );
  assert.deepEqual(back.suspendedSecrets, []);
});

test('after the server stops, the stored value opens with the data directory key only', async () => {
  await server.stop('SIGTERM');
  const config = withSecretKey(loadConfig({ DOCWRIGHT_DATA_DIR: dataDir }));
  const db = await openPglite(join(dataDir, 'pgdata'));
  try {
    const raw = await db.query<{ sealed: string }>('SELECT sealed FROM project_secrets');
    assert.ok(raw.length > 0 && raw.every((r) => !r.sealed.includes(SECRET)));
    assert.equal(await readProjectSecret(db, config.secretKey, projectId, 'codeHostToken'), SECRET);
  } finally {
    await db.close();
  }
});
