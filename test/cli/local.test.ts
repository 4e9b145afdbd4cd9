// The admin commands on a free embedded data directory (no server running): they open the
// database themselves, under its lock, and let go of it when done. Also usage mistakes and help.
import assert from 'node:assert/strict';
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { helpText } from '../../src/config/describe-variables.ts';
import { CONFIG_VARIABLES } from '../../src/config/variables.ts';
import { CLIENT_VARIABLES } from '../../src/main/cli/client-options.ts';
import { cliEnv, runCli, runJson, STACK_LINE, tempDataDir } from './cli-process.ts';

describe('admin commands without a server', () => {
  const dataDir = tempDataDir();
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  after(() => rmSync(dirname(dataDir), { recursive: true, force: true }));

  test('projects create, list and update work on the embedded database and release it', async () => {
    assert.deepEqual(await runJson(['projects', 'list', '--json'], env), []);
    // The first command to open the embedded database made its key, readable by the owner only.
    assert.equal(statSync(join(dataDir, 'secret.key')).mode & 0o777, 0o600);
    const empty = await runCli(['projects', 'list'], env);
    assert.match(empty.stdout, /No projects yet/);

    const created = await runJson<{ id: string; codeHost: unknown; ref: string }>(
      ['projects', 'create', '--name', 'Docs', '--repository', 'https://gitlab.com/acme/docs', '--json'],
      env,
    );
    assert.deepEqual(
      created.codeHost,
      { kind: 'gitlab', baseUrl: null, apiUrl: null },
      'detected from gitlab.com',
    );
    assert.equal(created.ref, 'main');
    assert.equal(existsSync(join(dataDir, 'docwright.lock')), false, 'the lock is released');

    const updated = await runJson<{ ref: string; repositoryUrl: string; codeHost: unknown }>(
      [
        'projects',
        'update',
        created.id,
        '--repository',
        'https://github.com/acme/docs',
        '--ref',
        'docs',
        '--json',
      ],
      env,
    );
    assert.equal(updated.ref, 'docs');
    assert.deepEqual(
      updated.codeHost,
      { kind: 'github', baseUrl: null, apiUrl: null },
      're-detected from the new repository',
    );
    // A repository on a host docwright does not recognise needs --code-host, as on create.
    const unknown = await runCli(
      ['projects', 'update', created.id, '--repository', 'https://git.example.com/acme/docs'],
      env,
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /is not known: set it to one of github, gitlab, gitea \(CLI: --code-host\)/);

    const text = await runCli(['projects', 'list'], env);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^ID +NAME +REPOSITORY +REF +HOST +MODEL\n/);
    assert.match(
      text.stdout,
      new RegExp(`${created.id} +Docs +https://github.com/acme/docs +docs +github +-`),
    );
  });

  test('keys create, list and revoke work on the embedded database', async () => {
    const [project] = await runJson<{ id: string }[]>(['projects', 'list', '--json'], env);
    const created = await runJson<{ id: string; key: string; prefix: string }>(
      [
        'keys',
        'create',
        '--project',
        project!.id,
        '--scope',
        'ingest',
        '--expires',
        '2099-01-01T00:00:00Z',
        '--json',
      ],
      env,
    );
    const listed = await runJson<{ id: string; prefix: string; expiresAt: string; revokedAt: null }[]>(
      ['keys', 'list', '--project', project!.id, '--json'],
      env,
    );
    assert.deepEqual(
      listed.map((k) => [k.id, k.prefix, k.expiresAt, k.revokedAt]),
      [[created.id, created.prefix, '2099-01-01T00:00:00.000Z', null]],
    );
    const revoked = await runJson<{ id: string; revokedAt: string }>(
      ['keys', 'revoke', created.id, '--json'],
      env,
    );
    assert.equal(revoked.id, created.id);
    assert.ok(!Number.isNaN(Date.parse(revoked.revokedAt)));

    const unknownProject = await runCli(['keys', 'list', '--project', 'prj_missing'], env);
    assert.equal(unknownProject.code, 1);
    assert.equal(unknownProject.stderr.trim(), 'error: No project has the id "prj_missing".');
  });
});

describe('usage mistakes exit with status 2 and say what is wrong', () => {
  const dataDir = tempDataDir();
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  after(() => rmSync(dirname(dataDir), { recursive: true, force: true }));

  const cases: [string[], RegExp][] = [
    [['projects', 'create', '--name', 'x'], /required option '--repository <url>' not specified/],
    [
      ['projects', 'create', '--name', 'x', '--repository', 'https://github.com/a/b', '--code-host', 'svn'],
      /Allowed choices are github, gitlab, gitea/,
    ],
    [['projects', 'update', 'prj_1'], /nothing to change/],
    [['projects', 'update', 'prj_1', '--setting', 'draftPullRequests'], /write it as key=value/],
    [
      ['projects', 'update', 'prj_1', '--setting', 'deniedPaths=docs/**'],
      /the value of deniedPaths must be JSON/,
    ],
    [['keys', 'create'], /required option '--project <projectId>' not specified/],
    [['keys', 'create', '--project', 'prj_1', '--scope', 'root'], /Allowed choices are admin, read, ingest/],
    [
      ['keys', 'create', '--project', 'prj_1', '--expires', 'tomorrow'],
      /use a duration \(30d, 12h, 90m, 2w\)/,
    ],
    [['keys', 'revoke'], /missing required argument 'keyId'/],
    [['keys', 'delete'], /unknown command 'delete'/],
    [['servee'], /unknown command 'servee'/],
  ];
  for (const [args, message] of cases) {
    test(`docwright ${args.join(' ')}`, async () => {
      const result = await runCli(args, env);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, STACK_LINE);
      assert.equal(result.stdout, '');
    });
  }

  test('none of them touched the data directory', () => {
    assert.equal(existsSync(join(dataDir, 'pgdata')), false);
  });
});

describe('--help', () => {
  const env = cliEnv({});
  test('docwright --help sets every variable apart from its description', async () => {
    const result = await runCli(['--help'], env);
    for (const name of [...Object.keys(CONFIG_VARIABLES), ...Object.keys(CLIENT_VARIABLES)]) {
      assert.match(result.stdout, new RegExp(`^  ${name} {2,}\\S`, 'm'), `${name} runs into its text`);
    }
    // Each line is its declaration's text: the meaning, the value's form and the default.
    assert.equal(
      helpText(CONFIG_VARIABLES.DOCWRIGHT_JOB_LEASE_SECONDS!),
      "How long a worker's claim on a job lasts without a heartbeat; a dead worker's job is taken again after it (integer 3–3600; default 30).",
    );
    for (const [name, schema] of Object.entries(CONFIG_VARIABLES)) {
      const line = result.stdout.split('\n').find((l) => l.startsWith(`  ${name} `));
      assert.equal(line?.trimEnd().slice(-helpText(schema).length), helpText(schema), name);
    }
  });
  const commands: [string[], string[]][] = [
    [[], ['serve', 'migrate', 'projects', 'keys', 'DATABASE_URL', 'DOCWRIGHT_DATA_DIR', 'LOG_LEVEL']],
    [['serve'], ['SIGTERM', 'Examples:']],
    [['migrate'], ['Example:']],
    [['projects'], ['create', 'list', 'update']],
    [
      ['projects', 'create'],
      [
        '--name',
        '--repository',
        '--ref',
        '--code-host',
        '--code-host-url',
        'GitHub Enterprise',
        '--code-host-api-url',
        '--model',
        '--json',
      ],
    ],
    [['projects', 'list'], ['--json']],
    [
      ['projects', 'update'],
      ['<projectId>', '--setting', '--name', '--repository', '--code-host-api-url', '--model', 'Examples:'],
    ],
    [['keys'], ['create', 'list', 'revoke']],
    [
      ['keys', 'create'],
      ['--project', '--name', '--scope', '--expires', '--json', 'admin', 'ingest'],
    ],
    [
      ['keys', 'list'],
      ['--project', '--json'],
    ],
    [['keys', 'revoke'], ['<keyId>']],
    // The CSV example covers January only: --to is exclusive, and it differs from the dashboard's.
    [['views'], ['--from 2026-01-01 --to 2026-02-01 --csv > views-january.csv', "the dashboard's To"]],
  ];
  for (const [args, words] of commands) {
    test(`docwright ${[...args, '--help'].join(' ')}`, async () => {
      const result = await runCli([...args, '--help'], env);
      assert.equal(result.code, 0, result.stderr);
      // Commander wraps long lines: compare with the white space collapsed.
      const text = result.stdout.replace(/\s+/g, ' ');
      for (const word of words) assert.ok(text.includes(word), `help lacks ${word}:\n${result.stdout}`);
    });
  }
});
