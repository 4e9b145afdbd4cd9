// End to end on GitHub (Prism-checked), the ways a job can go wrong after it started, each with
// the code and the state it must leave behind: a push the host rejects (protected branch, or a
// branch that moved), a token git refuses, a pull request refused after the push, a bound reached
// with and without work done, a cancel while the model is thinking, and a retry after a worker died
// between opening the pull request and recording it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { promisify } from 'node:util';
import { branchName } from '../../src/agent/workspace/branch-name.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, branchTip, REPOSITORY, startAgentHarness } from './agent-harness.ts';
import { newToken } from './code-host-stands.ts';
import { eventually, GUIDE_EDIT, scriptDocsEdit } from './scripts.ts';

const run = promisify(execFile);

await forEachBackend('agent jobs that go wrong, end to end (GitHub)', ({ db }) => {
  let h: AgentHarness;
  before(async () => {
    // A short lease, so the retry test does not wait long for its heartbeat to notice.
    h = await startAgentHarness(db(), { worker: { leaseMs: 3000, maxAttempts: 3 } });
  });
  afterEach(async () => {
    h.intercept = null;
    await h.setSettings({ maxSteps: null });
    await h.setCodeHostToken(h.token);
  });
  after(() => h.close());

  test('push rejected by a protected branch: failed push_rejected, branch named, nothing opened', {
    timeout: 60_000,
  }, async () => {
    const hook = join(h.git.repoPath(REPOSITORY), 'hooks', 'pre-receive');
    // The job's branch is protected on the host before its run starts.
    h.intercept = async (input, real) => {
      await h.git.protectBranch(REPOSITORY, branchName(input.prompts[0]!, input.job.id));
      return real(input);
    };
    try {
      scriptDocsEdit(h.llm);
      const created = await h.createJob('Protected branch push');
      const job = await h.waitForJob(created.id);
      assert.equal(job.status, 'failed');
      assert.equal(job.error?.code, 'push_rejected');
      assert.match(job.error?.message ?? '', /rejected the push/);
      assert.match(job.error?.message ?? '', /protected branch/);
      assert.equal(job.branch, branchName('Protected branch push', created.id));
      assert.equal(job.prLink, null);
      assert.equal(await branchTip(h.git, job.branch!), null);
      assert.equal(h.host.pulls().length, 0);
      // Removed after the outcome is recorded (docs/agent-jobs.md, step 7).
      await eventually('the worktree to be removed', async () => (await h.worktrees()).length === 0);
    } finally {
      await rm(hook, { force: true });
    }
  });

  test('push rejected because the branch already holds other work: that work is kept, not overwritten', {
    timeout: 60_000,
  }, async () => {
    const bare = h.git.repoPath(REPOSITORY);
    let theirs = '';
    h.intercept = async (input, real) => {
      // Someone else's commit on the job's branch name, not descended from the job's start.
      const branch = branchName(input.prompts[0]!, input.job.id);
      const tree = (await run('git', ['--git-dir', bare, 'rev-parse', 'main^{tree}'])).stdout.trim();
      const env = {
        ...process.env,
        GIT_AUTHOR_NAME: 'Someone',
        GIT_AUTHOR_EMAIL: 'someone@example.test',
        GIT_COMMITTER_NAME: 'Someone',
        GIT_COMMITTER_EMAIL: 'someone@example.test',
      };
      theirs = (
        await run('git', ['--git-dir', bare, 'commit-tree', tree, '-m', 'Unrelated work'], { env })
      ).stdout.trim();
      await run('git', ['--git-dir', bare, 'update-ref', `refs/heads/${branch}`, theirs]);
      return real(input);
    };
    scriptDocsEdit(h.llm);
    const created = await h.createJob('Branch taken meanwhile');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'push_rejected');
    assert.equal(await branchTip(h.git, job.branch!), theirs, 'the branch still holds the other work');
    assert.equal(h.host.pulls().length, 0);
  });

  test('a token git refuses: failed code_host_auth, the token in no message', {
    timeout: 60_000,
  }, async () => {
    const wrong = newToken('github');
    await h.setCodeHostToken(wrong);
    // No script: the model must not be asked (it would answer 400, and the code would differ).
    const requestsBefore = h.llm.requests.length;
    const created = await h.createJob('Wrong token');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'code_host_auth');
    assert.match(job.error?.message ?? '', /refused the token/);
    assert.ok(!JSON.stringify(job).includes(wrong));
    assert.ok(!h.logs.join('').includes(wrong));
    assert.equal(h.llm.requests.length, requestsBefore, 'the model was not asked: git failed first');
  });

  test('the pull request refused after the push: failed pr_failed, the branch pushed and recorded', {
    timeout: 60_000,
  }, async () => {
    h.host.failPullRequestCreation(422);
    scriptDocsEdit(h.llm);
    const created = await h.createJob('Pull request refused');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'pr_failed');
    assert.match(job.error?.message ?? '', /422|Validation Failed|cannot be created/);
    assert.equal(job.prLink, null);
    assert.equal(job.branch, branchName('Pull request refused', created.id));
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes` to accept/);
    assert.equal(h.host.pulls().length, 0);
    const types = (await h.events(created.id)).map((e) => e.type);
    assert.ok(types.includes('pushed'), types.join(','));
  });

  test('a bound reached after an edit: the work is pushed, the PR opened, the bound named', {
    timeout: 60_000,
  }, async () => {
    await h.setSettings({ maxSteps: 3 });
    const pullsBefore = h.host.pulls().length;
    // The model edits, then keeps reading instead of finishing, even on the last step.
    h.llm.enqueue(
      reply.toolCall('edit_file', GUIDE_EDIT),
      reply.toolCall('read_file', { path: 'docs/index.md' }),
      reply.toolCall('read_file', { path: 'docs/reference/api.md' }),
    );
    const created = await h.createJob('Bound after an edit');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal(h.host.pulls().length, pullsBefore + 1);
    assert.equal(job.prLink, h.host.pulls().at(-1)!.url);
    assert.match(job.summary ?? '', /max_steps/);
    assert.equal((await h.jobRow(created.id)).stop_reason, 'max_steps');
    assert.equal(job.usage?.steps, 3);
    assert.match(h.host.pulls().at(-1)!.body, /step bound/);
    assert.match(job.summary ?? '', /the pull request holds the changes it had made by then\.$/);
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes` to accept/);
  });

  test('a bound reached before any change: failed limit_reached, nothing pushed', {
    timeout: 60_000,
  }, async () => {
    await h.setSettings({ maxSteps: 2 });
    h.llm.enqueue(
      reply.toolCall('read_file', { path: 'docs/index.md' }),
      reply.toolCall('read_file', { path: 'docs/guide.md' }),
    );
    const created = await h.createJob('Bound before a change');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'limit_reached');
    assert.equal(
      job.error?.message,
      'The agent stopped at its step bound (max_steps) before it changed any file, so there is nothing to review.',
    );
    assert.equal((await h.jobRow(created.id)).stop_reason, 'max_steps');
    assert.equal(await branchTip(h.git, branchName('Bound before a change', created.id)), null);
  });

  test('cancel of a running job: failed cancelled, the model call aborted, the worktree removed', {
    timeout: 60_000,
  }, async () => {
    const index = h.llm.requests.length;
    h.llm.enqueue(reply.hang());
    const created = await h.createJob('Cancel me while thinking');
    await h.llm.waitForRequests(index + 1);
    // The model may be asked before the worktree is ready (docs/agent-jobs.md): it comes meanwhile.
    await eventually('the run to have its worktree', async () => (await h.worktrees()).includes(created.id));
    assert.deepEqual(await h.worktrees(), [created.id]);
    const cancelled = await h.cancelJob(created.id);
    assert.equal(cancelled.statusCode, 200);
    assert.equal(cancelled.body.status, 'failed');
    assert.equal(cancelled.body.error?.code, 'cancelled');
    const aborted = await h.llm.waitForAbort(index);
    assert.ok(aborted.abortedAt !== null);
    await eventually('the worktree to be removed', async () => (await h.worktrees()).length === 0);
    await eventually('the worker to let go', () => !h.worker.activeJobIds.includes(created.id));
    const job = await h.waitForJob(created.id);
    assert.equal(job.error?.code, 'cancelled', 'the stopped run did not overwrite the outcome');
    const ends = (await h.events(created.id)).filter((e) => e.type === 'failed' || e.type === 'completed');
    assert.equal(ends.length, 1);
    assert.equal(h.llm.requests.length, index + 1, 'no model call after the cancel');
  });

  test('a worker that died after opening the PR: the retry reuses it, one PR in all', {
    timeout: 60_000,
  }, async () => {
    const pullsBefore = h.host.pulls().length;
    let attempts = 0;
    const firstRequestOf: number[] = [];
    h.intercept = async (input, real) => {
      attempts++;
      firstRequestOf[input.attempt] = h.llm.requests.length;
      const result = await real(input);
      if (input.attempt > 1) return result;
      // Attempt 1 pushed and opened the pull request, then its process "died" before recording
      // the outcome: its lease belongs to a dead worker and has run out, as after a kill -9.
      await db().query(
        "UPDATE jobs SET lease_owner = 'dead-host:1:000000', lease_expires_at = now() - interval '1 second' WHERE id = $1",
        [input.job.id],
      );
      // The heartbeat may have noticed before this line: an abort that already happened counts.
      await new Promise<void>((resolve) => {
        if (input.signal.aborted) resolve();
        else input.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return result;
    };
    scriptDocsEdit(h.llm, 'Retry-safe change');
    // The second attempt finds its change already on the branch and just finishes.
    h.llm.enqueue(
      reply.toolCall('read_file', { path: 'docs/guide.md' }),
      reply.toolCall('finish', { title: 'Retry-safe change', summary: 'Explained the --yes flag.' }),
    );
    const created = await h.createJob('Retry after the PR step');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal(attempts, 2);
    assert.equal((await h.jobRow(created.id)).attempts, 2);
    const pulls = h.host.pulls();
    assert.equal(pulls.length, pullsBefore + 1, 'one pull request, not two');
    assert.equal(job.prLink, pulls.at(-1)!.url);
    const opened = (await h.events(created.id)).filter((e) => e.type === 'pull_request');
    assert.deepEqual(
      opened.map((e) => e.data.reused),
      [false, true],
    );
    const started = (await h.events(created.id)).filter((e) => e.type === 'started');
    assert.deepEqual(
      started.map((e) => e.data.attempt),
      [1, 2],
    );
    // Attempt 2 was told what attempt 1 had pushed, so it does not make the change again.
    const retried = h.llm.requests[firstRequestOf[2]!]!.userTexts.at(-1) ?? '';
    assert.match(retried, /^Retry after the PR step\n\n## Work already done on this request\n/);
    assert.match(retried, /An earlier attempt at this request was cut short before it finished/);
    assert.match(
      retried,
      /Its diff against main:\n\n```diff\ndiff --git a\/docs\/guide\.md b\/docs\/guide\.md\n/,
    );
    assert.match(retried, /\n\+Run the installer with `--yes` to accept the defaults\.\n/);
    assert.match(retried, /Do not make these changes again\./);
    const firstTry = h.llm.requests[firstRequestOf[1]!]!.userTexts.at(-1);
    assert.equal(firstTry, 'Retry after the PR step', 'the first attempt had nothing to be told');
  });
});
