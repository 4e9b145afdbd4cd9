// End to end over HTTP: create a job → the worker → the scripted model lists, reads and edits a
// Markdown page with the real tools → commit → push to the git server → pull request on the
// GitHub fake (checked by Prism) → the job is completed with prLink = the pull request's html_url.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, GITHUB_TOKEN, MODEL_KEY, startAgentHarness } from './agent-harness.ts';
import { eventually } from './scripts.ts';

const EDIT = {
  path: 'docs/guide.md',
  old_text: 'Run the installer.',
  new_text: 'Run the installer with `--yes` to accept the defaults.',
};

function scriptDocsEdit(h: AgentHarness, title = 'Document the --yes flag') {
  h.llm.enqueue(
    reply.toolCall('list_files', { pattern: 'docs/**' }),
    reply.toolCall('read_file', { path: 'docs/guide.md' }),
    reply.toolCall('edit_file', EDIT),
    reply.toolCall('finish', { title, summary: 'Explained the --yes flag in the install section.' }),
  );
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

await forEachBackend('agent jobs on GitHub, end to end', ({ db }) => {
  let h: AgentHarness;
  before(async () => {
    h = await startAgentHarness(db());
  });
  after(() => h.close());

  test('a prompt becomes a pull request: edit, commit, push, PR, prLink', async () => {
    scriptDocsEdit(h);
    const created = await h.createJob('Explain the --yes flag of the installer');
    assert.equal(created.status, 'active');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const pulls = h.github.fake.pulls('acme', 'docs');
    assert.equal(pulls.length, 1);
    const pull = pulls[0]!;
    assert.equal(job.prLink, pull.html_url);
    assert.equal(pull.head, job.branch);
    assert.equal(pull.base, 'main');
    assert.equal(pull.title, 'Document the --yes flag');
    assert.match(pull.body ?? '', /Explained the --yes flag/);
    assert.match(pull.body ?? '', /Explain the --yes flag of the installer/);
    assert.match(pull.body ?? '', new RegExp(created.id));
    assert.match(job.branch ?? '', /^docwright\/explain-the-yes-flag/);
    // The change is really on the pushed branch, and only there.
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes` to accept the defaults/);
    assert.doesNotMatch((await h.fileOnBranch('main', 'docs/guide.md')) ?? '', /--yes/);
    assert.equal(job.model, 'openai:gpt-e2e');
    assert.equal(job.usage?.steps, 4);
    assert.ok((job.usage?.inputTokens ?? 0) > 0);
    // The model was told the repository's AGENTS.md and the prompt.
    const first = h.llm.requests[0]!;
    assert.match(first.system, /Write in plain English/);
    assert.ok(first.userTexts.some((t) => t.includes('Explain the --yes flag')));
    assert.equal(first.apiKey.matches, true);
    const events = await db().query<{ type: string }>(
      'SELECT type FROM job_events WHERE job_id = $1 ORDER BY id',
      [created.id],
    );
    const types = events.map((e) => e.type);
    for (const t of [
      'created',
      'started',
      'workspace',
      'tool_call',
      'committed',
      'pushed',
      'pull_request',
      'completed',
    ]) {
      assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
    }
    assert.equal(h.github.fake.secretLeaks.length, 0);
    // The diff outlives the worktree: the diff endpoint serves what the run kept.
    const diff = await h.app.inject({
      url: `/v2/agent/${h.project.id}/job/${created.id}/diff`,
      headers: { authorization: `Bearer ${h.adminKey}` },
    });
    assert.equal(diff.statusCode, 200);
    assert.match(diff.body, /^\+Run the installer with `--yes` to accept the defaults\.$/m);
    assert.match(diff.body, /^-Run the installer\.$/m);
    // The job's worktree is gone (kept for reuse or deleted); the mirror stays for the next job.
    // Removed after the outcome is recorded (docs/agent-jobs.md, step 7).
    await eventually('the worktree to be removed', async () => (await h.worktrees()).length === 0);
  });

  test('a follow-up continues the same branch and updates the same pull request', async () => {
    const first = (
      await db().query<{ id: string }>("SELECT id FROM jobs WHERE status = 'completed' LIMIT 1")
    )[0]!;
    h.llm.enqueue(
      reply.toolCall('edit_file', {
        path: 'docs/guide.md',
        old_text: 'Restart the service.',
        new_text: 'Restart the service (it takes a minute).',
      }),
      reply.toolCall('finish', {
        title: 'Document the --yes flag and restarts',
        summary: 'Also noted how long a restart takes.',
      }),
    );
    const res = await h.app.inject({
      method: 'POST',
      url: `/v2/agent/${h.project.id}/job/${first.id}/message`,
      headers: { authorization: `Bearer ${h.adminKey}`, 'content-type': 'application/json' },
      payload: { prompt: 'Also say how long a restart takes' },
    });
    assert.equal(res.statusCode, 200);
    const job = await h.waitForJob(first.id, (j) => j.status !== 'active');
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const pulls = h.github.fake.pulls('acme', 'docs');
    assert.equal(pulls.length, 1, 'no second pull request');
    assert.equal(job.prLink, pulls[0]!.html_url);
    assert.equal(pulls[0]!.title, 'Document the --yes flag and restarts');
    const guide = (await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '';
    assert.match(guide, /--yes` to accept/, 'the first run’s change is kept');
    assert.match(guide, /it takes a minute/);
    // The model saw the earlier request and its summary.
    const followUpRequest = h.llm.requests.at(-2)!;
    assert.ok(followUpRequest.userTexts.join('\n').includes('Explain the --yes flag'));
    assert.ok(
      JSON.stringify(followUpRequest.body).includes('Explained the --yes flag in the install section.'),
    );
  });

  test('a job that changes nothing completes with prLink null', async () => {
    h.llm.enqueue(
      reply.toolCall('read_file', { path: 'README.md' }),
      reply.toolCall('finish', { title: 'Nothing to do', summary: 'The README is already correct.' }),
    );
    const created = await h.createJob('Check the README for typos');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed');
    assert.equal(job.prLink, null);
    assert.equal(job.summary, 'The README is already correct.');
    assert.equal(h.github.fake.pulls('acme', 'docs').length, 1);
  });

  test('a model 500 is retried and the job still completes; a 400 fails it with model_error', async () => {
    h.llm.enqueue(reply.error(500, { message: 'overloaded' }));
    scriptDocsEdit(h, 'Retry worked');
    const retried = await h.waitForJob((await h.createJob('Retry after a server error')).id);
    assert.equal(retried.status, 'completed', JSON.stringify(retried.error));

    h.llm.enqueue(reply.error(400, { message: 'This model does not support tools' }));
    const failed = await h.waitForJob((await h.createJob('Fail on a bad request')).id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'model_error');
    assert.match(failed.error?.message ?? '', /does not support tools/);
  });

  test('secrets appear in no log line, event, database row, PR body or data file', async () => {
    const secrets = [
      GITHUB_TOKEN,
      MODEL_KEY,
      Buffer.from(`x-access-token:${GITHUB_TOKEN}`).toString('base64'),
    ];
    const logText = h.logs.join('');
    assert.ok(logText.length > 0);
    const tables = await db().query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    let dump = '';
    for (const { table_name } of tables) {
      dump += JSON.stringify(await db().query(`SELECT * FROM ${table_name}`));
    }
    const bodies = h.github.fake
      .pulls('acme', 'docs')
      .map((p) => `${p.title}\n${p.body}`)
      .join('\n');
    // The last job's worktree is removed after its outcome is recorded: the files settle first.
    await eventually('the worker to finish its cleanup', () => h.worker.activeJobIds.length === 0);
    let files = '';
    for (const file of await filesUnder(h.dataDir)) files += await readFile(file, 'latin1');
    for (const secret of secrets) {
      assert.ok(!logText.includes(secret), 'not in logs');
      assert.ok(!dump.includes(secret), 'not in the database (the stored token is sealed)');
      assert.ok(!bodies.includes(secret), 'not in pull requests');
      assert.ok(!files.includes(secret), 'not in the mirror, worktrees or git config');
      assert.ok(
        !h.github.fake.recordedText().includes(secret),
        'the fake recorded no token outside its header',
      );
    }
  });
});
