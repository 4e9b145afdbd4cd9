// kill -9 of a `docwright worker` process in the middle of a job, on PostgreSQL: the job is taken
// again (attempt 2) by another worker process once the dead one's lease runs out, and ends. Twice:
// killed while the model is thinking, and killed after the pull request was opened but before the
// worker heard back (the retry must reuse that pull request, not open a second one).
//
// The workers are real child processes (src/main/cli.ts worker) sharing one data directory, so the
// second finds the first one's leftover worktree. A retry is told what the branch already holds
// when the dead attempt had pushed (so it does not make the change a second time), and nothing
// when it had not. They reach the model (the scripted server) through
// OPENAI_BASE_URL, and the code host (the Gitea fake behind the code-host link) through the
// project's codeHostBaseUrl, with the token the project stores sealed under DOCWRIGHT_SECRET_KEY.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { cliEnv } from '../cli/cli-process.ts';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, MODEL_KEY, startAgentHarness } from './agent-harness.ts';
import { pullRequestCreatePath } from './code-host-stands.ts';
import { eventually, scriptDocsEdit } from './scripts.ts';
import { startWorkerProcess, type WorkerProcess } from './worker-process.ts';

// Like forEachBackend: without a reachable PostgreSQL the suite is skipped with a note, except in CI.
async function postgresProblem(): Promise<string | false> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return false;
  } catch (error) {
    return process.env.CI === 'true' ? false : `PostgreSQL is unreachable (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

describe('kill -9 of a worker process mid-run (PostgreSQL, docwright worker processes)', {
  skip: await postgresProblem(),
}, () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Database;
  let h: AgentHarness;
  let env: NodeJS.ProcessEnv;
  const workers: WorkerProcess[] = [];

  before(async () => {
    database = await createPostgresDatabase();
    db = await openPostgres(database.url, { max: 5 });
    await migrate(db);
    // The API runs here; no worker runs in this process.
    h = await startAgentHarness(db, { kind: 'gitea', startWorker: false });
    env = cliEnv({
      DATABASE_URL: database.url,
      DOCWRIGHT_SECRET_KEY: h.secretKey.toString('hex'),
      DOCWRIGHT_DATA_DIR: h.dataDir,
      DOCWRIGHT_JOB_LEASE_SECONDS: '3',
      DOCWRIGHT_JOB_MAX_ATTEMPTS: '3',
      // The git server and the code-host fake are on 127.0.0.1.
      DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE: 'true',
      OPENAI_API_KEY: MODEL_KEY,
      OPENAI_BASE_URL: h.llm.baseURL,
      LOG_LEVEL: 'debug',
    });
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await h?.close();
    await db?.close();
    await database?.drop();
  });

  const startWorker = async () => {
    const worker = await startWorkerProcess(env);
    workers.push(worker);
    return worker;
  };

  test('killed while the model is thinking: attempt 2 on another worker completes the job', {
    timeout: 90_000,
  }, async () => {
    const firstRequest = h.llm.requests.length;
    h.llm.enqueue(reply.hang());
    scriptDocsEdit(h.llm);
    const first = await startWorker();
    const created = await h.createJob('Survive a worker crash');
    await h.llm.waitForRequests(1);
    const killed = await first.stop('SIGKILL');
    assert.equal(killed.signal, 'SIGKILL');
    // The dead process's model call went with it.
    await h.llm.waitForAbort(0);
    const row = await h.jobRow(created.id);
    assert.equal(row.status, 'active', 'the job waits for its lease to run out');
    assert.equal(row.attempts, 1);
    assert.deepEqual(await h.worktrees(), [created.id], 'the dead worker left its worktree behind');

    const second = await startWorker();
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal((await h.jobRow(created.id)).attempts, 2);
    const started = (await h.events(created.id)).filter((e) => e.type === 'started');
    assert.deepEqual(
      started.map((e) => [e.data.attempt, e.data.worker]),
      [
        [1, first.workerId],
        [2, second.workerId],
      ],
    );
    const pulls = h.host.pulls();
    assert.equal(pulls.length, 1);
    assert.equal(job.prLink, pulls[0]!.url);
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes` to accept/);
    await eventually('the leftover worktree to be gone', async () => (await h.worktrees()).length === 0);
    // Attempt 1 died before pushing anything: attempt 2 gets the request as it was.
    assert.equal(h.llm.requests[firstRequest + 1]!.userTexts.at(-1), 'Survive a worker crash');
  });

  test('killed after opening the pull request, before hearing back: the retry reuses it', {
    timeout: 90_000,
  }, async () => {
    const running = workers.at(-1)!;
    const firstRequest = h.llm.requests.length;
    const held = h.host.link.hold({ method: 'POST', path: pullRequestCreatePath('gitea') });
    scriptDocsEdit(h.llm, 'Crash-safe pull request');
    // Attempt 2 finds the change on the branch already and finishes.
    h.llm.enqueue(
      reply.toolCall('read_file', { path: 'docs/guide.md' }),
      reply.toolCall('finish', { title: 'Crash-safe pull request', summary: 'Explained the --yes flag.' }),
    );
    const created = await h.createJob('Open the pull request once');
    const creation = await held;
    assert.equal(creation.status, 201, 'the host created the pull request');
    assert.equal(h.host.pulls().length, 2);
    await running.stop('SIGKILL');
    h.host.link.release();

    await startWorker();
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal((await h.jobRow(created.id)).attempts, 2);
    const pulls = h.host.pulls().filter((p) => p.head === job.branch);
    assert.equal(pulls.length, 1, 'one pull request for the branch');
    assert.equal(job.prLink, pulls[0]!.url);
    const opened = (await h.events(created.id)).filter((e) => e.type === 'pull_request');
    assert.deepEqual(
      opened.map((e) => e.data.reused),
      [true],
      'only attempt 2 heard back, and it found the existing one',
    );
    // Attempt 2's first model call (after attempt 1's four) carries what attempt 1 pushed.
    const retried = h.llm.requests[firstRequest + 4]!.userTexts.at(-1) ?? '';
    assert.match(retried, /^Open the pull request once\n\n## Work already done on this request\n/);
    assert.match(retried, /An earlier attempt at this request was cut short before it finished/);
    assert.match(retried, /\n\+Run the installer with `--yes` to accept the defaults\.\n/);
    assert.match(retried, /Do not make these changes again\./);
  });

  test('the worker processes logged neither the token nor the model key', () => {
    const output = workers.map((w) => w.output()).join('\n');
    assert.match(output, /job finished/);
    assert.ok(!output.includes(h.token));
    assert.ok(!output.includes(MODEL_KEY));
  });
});
