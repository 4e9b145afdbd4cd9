// End to end: a docwright job opens a pull request on the GitHub fake → a reviewer comments on a
// line of it → the signed pull_request_review_comment webhook reaches docwright → one
// review_comment run follows up the same job → the agent (scripted model, real tools) sees the
// comment and the commented line as it is on the job's branch (read through the git mirror) and
// pushes a new commit to the same branch; the pull request is the same one.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { Ajv } from 'ajv';
import { createBranchLineReader } from '../../src/agent/branch-lines.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { AutomationWorker } from '../../src/modules/automations/index.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { githubDelivery } from '../stand-ins/code-host-webhooks.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, branchTip, startAgentHarness } from './agent-harness.ts';
import { OWNER, REPO } from './code-host-stands.ts';
import { eventually } from './scripts.ts';

const HOOK_SECRET = `hook-${randomBytes(12).toString('hex')}`;
const schemas = createRequire(import.meta.url)('@octokit/webhooks-schemas/schema.json');
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schemas, 'webhooks');
const validReviewComment = ajv.compile({ $ref: 'webhooks#/definitions/pull_request_review_comment$created' });

await forEachBackend('review comments on GitHub, end to end', ({ db }) => {
  let h: AgentHarness;
  let automations: AutomationWorker;
  before(async () => {
    h = await startAgentHarness(db());
    await setProjectSecret(db(), h.secretKey, h.project.id, 'codeHostWebhookSecret', HOOK_SECRET);
    automations = new AutomationWorker({
      db: db(),
      logger: createLogger('silent'),
      jobs: { jobRateLimitPerHour: 100, defaultModel: null },
      onJobQueued: () => h.worker.nudge(),
      pollIntervalMs: 100,
      // The reader docwright serve and docwright worker use, on the harness's data directory.
      readBranchLines: createBranchLineReader({
        db: db(),
        config: {
          dataDir: h.dataDir,
          secretKey: h.secretKey,
          defaultModel: null,
          modelCredentials: {
            openai: { apiKey: null, baseURL: null },
            anthropic: { apiKey: null, baseURL: null },
            'openai-compatible': { apiKey: null, baseURL: null },
          },
          codeHostTokens: { github: null, gitlab: null, gitea: null },
          repositories: TEST_REPOSITORIES,
        },
        codeHost: (options) =>
          createCodeHost({ ...options, apiUrl: h.github.apiUrl, retry: { attempts: 1 } }),
      }),
    });
    await automations.start();
  });
  after(async () => {
    await automations.stop();
    await h.close();
  });

  test('a review comment on a line becomes a follow-up commit on the same branch and pull request', async () => {
    const base = `/v2/automations/${h.project.id}`;
    const created = await h.app.inject({
      method: 'POST',
      url: base,
      headers: { ...bearer(h.adminKey), 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'Answer review comments',
        trigger: { type: 'review_comment' },
        promptTemplate: 'Answer the review comment of {{event.author}}.',
      }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const automation = created.json();

    // The job that opens the pull request.
    h.llm.enqueue(
      reply.toolCall('edit_file', {
        path: 'docs/guide.md',
        old_text: 'Run the installer.',
        new_text: 'Run the installer with `--yes`.',
      }),
      reply.toolCall('finish', { title: 'Document --yes', summary: 'Mentioned --yes.' }),
    );
    const job = await h.createJob('Document the --yes flag of the installer');
    const opened = await h.waitForJob(job.id);
    assert.equal(opened.status, 'completed', JSON.stringify(opened.error));
    assert.ok(opened.prLink && opened.branch);
    const tipBefore = await branchTip(h.git, opened.branch);
    const [pull] = h.github.fake.pulls(OWNER, REPO);
    assert.equal(pull!.html_url, opened.prLink);

    // The reviewer's comment on line 5 (the edited line), and the agent's answer to it.
    h.llm.enqueue(
      reply.toolCall('edit_file', {
        path: 'docs/guide.md',
        old_text: 'Run the installer with `--yes`.',
        new_text: 'Run the installer with `--yes` to accept every default without asking.',
      }),
      reply.toolCall('finish', { title: 'Explain --yes', summary: 'Said what --yes does.' }),
    );
    const payload = h.github.fake.commentOnPullLines(OWNER, REPO, pull!.number, {
      body: 'Say what --yes does.',
      path: 'docs/guide.md',
      line: 5,
      author: 'maintainer',
    });
    assert.ok(validReviewComment(payload), JSON.stringify(validReviewComment.errors?.slice(0, 3)));
    const delivery = await githubDelivery(HOOK_SECRET, 'pull_request_review_comment', payload);
    const hook = () =>
      h.app.inject({
        method: 'POST',
        url: `${base}/hooks/github`,
        headers: delivery.headers,
        payload: delivery.body,
      });
    const accepted = await hook();
    assert.equal(accepted.statusCode, 202, accepted.body);
    assert.equal((await hook()).statusCode, 200, 'a redelivery is acknowledged');

    const runs = async () =>
      (
        await h.app.inject({
          method: 'GET',
          url: `${base}/${automation.id}/runs`,
          headers: bearer(h.adminKey),
        })
      ).json().runs as { status: string; jobId: string | null; followedUp: boolean }[];
    await eventually('the run to follow up the job', async () => {
      const [run] = await runs();
      return run?.status === 'started' ? run : null;
    });
    const [run] = await runs();
    assert.equal(run!.jobId, job.id, 'the same job');
    assert.equal(run!.followedUp, true);
    const followed = await h.waitForJob(
      job.id,
      (j) => j.status !== 'active' && j.summary === 'Said what --yes does.',
    );
    assert.equal(followed.status, 'completed', JSON.stringify(followed.error));
    assert.equal(followed.branch, opened.branch, 'the same branch');
    assert.equal(followed.prLink, opened.prLink, 'the same pull request');
    assert.equal(h.github.fake.pulls(OWNER, REPO).length, 1, 'no second pull request');
    const tipAfter = await branchTip(h.git, opened.branch);
    assert.notEqual(tipAfter, tipBefore, 'a new commit on the branch');
    assert.match((await h.fileOnBranch(opened.branch, 'docs/guide.md')) ?? '', /accept every default/);
    // The model saw the comment and line 5 as it is on the job's branch (not on main).
    const prompt =
      h.llm.requests
        .map((r) => r.userTexts.join('\n'))
        .find((text) => text.includes('Say what --yes does.')) ?? '';
    assert.match(prompt, /> Say what --yes does\./);
    assert.match(prompt, />5 \| Run the installer with `--yes`\./);
    assert.match(prompt, /Answer the review comment of maintainer\./);
    assert.equal((await runs()).length, 1, 'one run, however often the comment was delivered');
  });
});
