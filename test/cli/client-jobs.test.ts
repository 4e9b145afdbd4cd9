// The CLI's jobs commands as child processes against a real server started in the test (HTTP on
// 127.0.0.1, a real database, a worker with a scripted runner): output, exit statuses (3 for a
// failed job with --wait, 4 for --timeout), error reports with code and request id, no key shown.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { Job } from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { type LiveServer, PR_LINK_BASE, startLiveServer } from '../sdk/live-server.ts';
import { CLI, type CliResult, cliEnv, runCli, STACK_LINE } from './cli-process.ts';

let db: Database;
let server: LiveServer;
let seeded: Awaited<ReturnType<typeof seedProject>>;
let env: NodeJS.ProcessEnv;

before(async () => {
  db = await openTestDatabase('pglite');
  server = await startLiveServer(db);
  seeded = await seedProject(db, { model: 'openai:gpt-test' });
  env = cliEnv({
    DOCWRIGHT_URL: server.url,
    DOCWRIGHT_API_KEY: seeded.adminKey,
    DOCWRIGHT_PROJECT: seeded.project.id,
  });
});
after(async () => {
  await server.close();
  await db.close();
});

/** Runs the CLI and checks what every run must hold: no key printed, no stack trace. */
async function cli(args: string[], runEnv = env): Promise<CliResult> {
  const result = await runCli(args, runEnv);
  for (const key of [seeded.adminKey, seeded.readKey]) {
    assert.ok(
      !result.stdout.includes(key) && !result.stderr.includes(key),
      `the key was printed by ${args.join(' ')}`,
    );
  }
  assert.doesNotMatch(result.stderr, STACK_LINE);
  return result;
}

function json<T = Job>(result: CliResult): T {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

describe('jobs create', () => {
  test('--json prints the created job', async () => {
    const job = json(await cli(['jobs', 'create', 'no-change: a quick one', '--json']));
    assert.match(job.id, /^job_/);
    assert.equal(job.status, 'active');
    assert.equal(job.prompt, 'no-change: a quick one');
  });

  test('without --json: the job for people, and how to follow it', async () => {
    const result = await cli(['jobs', 'create', 'no-change: plain']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Created job job_\w+ \(active\)\./);
    assert.match(result.stdout, /prompt: +no-change: plain/);
    assert.match(result.stdout, /docwright jobs wait job_/);
  });

  test('--wait: progress lines on stderr from the event stream, then the pull request link; exit 0', async () => {
    const result = await cli(['jobs', 'create', 'complete: document the flag', '--wait']);
    assert.equal(result.code, 0, result.stderr);
    const link = new RegExp(`Pull request: ${PR_LINK_BASE.replaceAll('/', '\\/')}\\d+`);
    assert.match(result.stdout, link);
    const progress = result.stderr.trim().split('\n');
    for (const line of progress) assert.match(line, /^\[\d\d:\d\d\] job_\w+: \S/);
    assert.ok(
      progress.some((l) => / queued$/.test(l)),
      result.stderr,
    );
    assert.ok(
      progress.some((l) => / read_file README\.md$/.test(l)),
      result.stderr,
    );
    assert.ok(
      progress.some((l) => / pull request https:/.test(l)),
      result.stderr,
    );
    assert.match(progress.at(-1)!, / completed$/);
  });

  test('--wait on a job that fails: exit status 3, the failure code and message', async () => {
    const noModel = await seedProject(db); // neither the project nor the server has a model
    const result = await cli(
      ['jobs', 'create', 'complete: never runs', '--wait'],
      cliEnv({
        DOCWRIGHT_URL: server.url,
        DOCWRIGHT_API_KEY: noModel.adminKey,
        DOCWRIGHT_PROJECT: noModel.project.id,
      }),
    );
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stdout, /^Job job_\w+ failed \(model_not_configured\): .*DOCWRIGHT_MODEL/);
    // Without a terminal: one progress line per step, in the order they happened.
    const progress = result.stderr
      .trim()
      .split('\n')
      .map((line) => line.replace(/^\[\d\d:\d\d\] job_\w+: /, ''));
    assert.deepEqual(progress, ['queued', 'failed: model_not_configured']);
  });

  test('--wait --json on a job failing while it runs: the failed job as JSON, exit 3', async () => {
    const result = await cli(['jobs', 'create', 'fail: while running', '--wait', '--json']);
    assert.equal(result.code, 3, result.stderr);
    const job = JSON.parse(result.stdout) as Job;
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'pr_failed');
  });

  test('--idempotency-key: the same key and prompt give the same job', async () => {
    const key = `cli-${Date.now()}`;
    const first = json(await cli(['jobs', 'create', 'no-change: once', '--idempotency-key', key, '--json']));
    const again = json(await cli(['jobs', 'create', 'no-change: once', '--idempotency-key', key, '--json']));
    assert.equal(again.id, first.id);
    const other = await cli(['jobs', 'create', 'no-change: other', '--idempotency-key', key]);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /code: idempotency_key_reused \(HTTP 422\)/);
  });

  test('"-" reads the prompt from standard input', async () => {
    const child = spawn(process.execPath, [CLI, 'jobs', 'create', '-', '--json'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
    child.stdin.end('no-change: from\nstandard input\n');
    const code = await new Promise((resolve) => child.once('close', resolve));
    assert.equal(code, 0);
    assert.equal((JSON.parse(out) as Job).prompt, 'no-change: from\nstandard input\n');
  });
});

describe('jobs get, list, wait, message, cancel, archive', () => {
  test('the life of a job through the CLI', async () => {
    const created = json(await cli(['jobs', 'create', 'hold: long work', '--json']));
    const got = json(await cli(['jobs', 'get', created.id, '--json']));
    assert.equal(got.id, created.id);
    const shown = await cli(['jobs', 'get', created.id]);
    assert.match(shown.stdout, new RegExp(`^${created.id}  active`));
    assert.match(shown.stdout, /pull request: +\(not yet\)/);

    // wait --timeout: exit 4, the job goes on.
    const timedOut = await cli(['jobs', 'wait', created.id, '--timeout', '1']);
    assert.equal(timedOut.code, 4, timedOut.stderr);
    assert.match(timedOut.stderr, /did not finish within 1000 ms/);
    assert.match(timedOut.stderr, new RegExp(`docwright jobs get ${created.id}`));

    const cancelled = await cli(['jobs', 'cancel', created.id]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.match(cancelled.stdout, /^Cancelled job job_\w+\./);
    assert.match(cancelled.stdout, /error: +cancelled: /);

    const again = await cli(['jobs', 'cancel', created.id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error: The job is failed; only an active job can be cancelled\./);
    assert.match(again.stderr, /code: job_not_active \(HTTP 409\)/);
    assert.match(again.stderr, /request id: req_[0-9a-f]{32}/);

    const followed = await cli(['jobs', 'message', created.id, 'complete: now finish', '--wait', '--json']);
    assert.equal(followed.code, 0, followed.stderr);
    const done = JSON.parse(followed.stdout) as Job;
    assert.equal(done.status, 'completed');
    assert.ok(done.prLink?.startsWith(PR_LINK_BASE));

    const archived = json(await cli(['jobs', 'archive', created.id, '--json']));
    assert.equal(archived.status, 'archived');
    const waited = await cli(['jobs', 'wait', created.id]);
    assert.equal(waited.code, 0);
    assert.match(waited.stdout, /is archived\. Pull request: https:/);
  });

  test('list: a table by default, every page with --all, the status filter', async () => {
    const own = await seedProject(db, { model: 'openai:gpt-test' });
    const ownEnv = cliEnv({
      DOCWRIGHT_URL: server.url,
      DOCWRIGHT_API_KEY: own.adminKey,
      DOCWRIGHT_PROJECT: own.project.id,
    });
    const empty = await cli(['jobs', 'list'], ownEnv);
    assert.match(empty.stdout, /^No jobs\./);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(json(await cli(['jobs', 'create', `no-change: ${i}`, '--json'], ownEnv)).id);
    const two = json<Job[]>(await cli(['jobs', 'list', '--limit', '2', '--json'], ownEnv));
    assert.deepEqual(
      two.map((j) => j.id),
      ids.toReversed().slice(0, 2),
    );
    const table = await cli(['jobs', 'list', '--limit', '2'], ownEnv);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0]!, /^ID +STATUS +CREATED +PULL REQUEST +PROMPT$/);
    assert.equal(lines.length, 4, table.stdout);
    assert.match(lines[3]!, /more jobs/);
    const all = json<Job[]>(await cli(['jobs', 'list', '--all', '--json'], ownEnv));
    assert.deepEqual(
      all.map((j) => j.id),
      ids.toReversed(),
    );
    const archived = json<Job[]>(await cli(['jobs', 'list', '--status', 'archived', '--json'], ownEnv));
    assert.deepEqual(archived, []);
  });
});

describe('errors', () => {
  test('404: the API message, code and request id on stderr; exit 1', async () => {
    const result = await cli(['jobs', 'get', 'job_doesnotexist00']);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^error: No job "job_doesnotexist00" in project "prj_\w+"\.\n/);
    assert.match(result.stderr, /code: job_not_found \(HTTP 404\)/);
    assert.match(result.stderr, /request id: req_[0-9a-f]{32}/);
  });

  test('400 with details naming the field', async () => {
    const result = await cli(['jobs', 'create', '   ']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /code: invalid_body \(HTTP 400\)/);
  });

  test('a key given with --key works and is not printed; a read key is refused creating (403)', async () => {
    const bare = cliEnv({ DOCWRIGHT_URL: server.url, DOCWRIGHT_PROJECT: seeded.project.id });
    const listed = await cli(['jobs', 'list', '--key', seeded.readKey, '--json'], bare);
    assert.equal(listed.code, 0, listed.stderr);
    const refused = await cli(['jobs', 'create', 'x', '--key', seeded.readKey], bare);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /code: insufficient_scope \(HTTP 403\)/);
  });

  test('a revoked or wrong key: 401 with its code', async () => {
    const result = await cli(['jobs', 'list'], { ...env, DOCWRIGHT_API_KEY: 'not-a-key' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /code: missing_api_key \(HTTP 401\)/);
  });

  test('no key or project: a usage error (exit 2) saying what to set', async () => {
    const result = await cli(['jobs', 'list'], cliEnv({ DOCWRIGHT_URL: server.url }));
    assert.equal(result.code, 2);
    assert.match(result.stderr, /DOCWRIGHT_API_KEY/);
    assert.match(result.stderr, /DOCWRIGHT_PROJECT/);
  });

  test('no server at the URL: exit 1 with a message naming the URL', async () => {
    const result = await cli(['jobs', 'list'], { ...env, DOCWRIGHT_URL: 'http://127.0.0.1:9' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Could not reach docwright at http:\/\/127\.0\.0\.1:9/);
    assert.match(result.stderr, /DOCWRIGHT_URL/);
  });

  test('a server URL with credentials in it is a usage error that does not repeat them', async () => {
    const result = await cli(['jobs', 'list'], {
      ...env,
      DOCWRIGHT_URL: 'http://admin:hunter2@127.0.0.1:3000',
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /must not contain a user name or password/);
    assert.ok(!result.stderr.includes('hunter2'));
  });

  test('--timeout without --wait, and --limit with --all, are usage errors', async () => {
    assert.equal((await cli(['jobs', 'create', 'x', '--timeout', '5'])).code, 2);
    assert.equal((await cli(['jobs', 'list', '--limit', '2', '--all'])).code, 2);
    assert.equal((await cli(['jobs', 'list', '--status', 'done'])).code, 2);
  });
});

test('Ctrl-C while waiting stops the wait (exit 130), not the job', async () => {
  const created = json(await cli(['jobs', 'create', 'hold: interrupted wait', '--json']));
  const child = spawn(process.execPath, [CLI, 'jobs', 'wait', created.id], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const progressed = new Promise<void>((resolve) =>
    child.stderr.on('data', (t: string) => {
      stderr += t;
      if (/: started$/m.test(stderr)) resolve();
    }),
  );
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  await progressed;
  child.kill('SIGINT');
  assert.equal(await closed, 130, stderr);
  assert.match(stderr, new RegExp(`Stopped waiting; job ${created.id} goes on`));
  const job = json(await cli(['jobs', 'get', created.id, '--json']));
  assert.equal(job.status, 'active', 'the job itself was not touched');
  await cli(['jobs', 'cancel', created.id]);
});

test('every jobs command has help with examples', async () => {
  for (const command of ['create', 'get', 'list', 'wait', 'message', 'cancel', 'archive']) {
    const result = await cli(['jobs', command, '--help']);
    assert.equal(result.code, 0, command);
    assert.match(result.stdout, /Example/, command);
    assert.match(result.stdout, /DOCWRIGHT_API_KEY/, command);
  }
});
