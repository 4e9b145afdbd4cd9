// End to end: a pull request merged in a code repository on the GitHub fake → its signed webhook
// to docwright → the automation's run → a job whose agent (the scripted model, the real tools)
// edits the docs repository → a pull request on the docs repository that cites the source pull
// request. A redelivery of the webhook starts nothing more.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AutomationWorker } from '../../src/modules/automations/index.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { githubDelivery } from '../stand-ins/code-host-webhooks.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, startAgentHarness } from './agent-harness.ts';
import { eventually } from './scripts.ts';

const HOOK_SECRET = `hook-${randomBytes(12).toString('hex')}`;

await forEachBackend('automations on GitHub, end to end', ({ db }) => {
  let h: AgentHarness;
  let automations: AutomationWorker;
  before(async () => {
    h = await startAgentHarness(db());
    await setProjectSecret(db(), h.secretKey, h.project.id, 'codeHostWebhookSecret', HOOK_SECRET);
    h.github.fake.addRepo({ owner: 'acme', name: 'engine' });
    automations = new AutomationWorker({
      db: db(),
      logger: createLogger('silent'),
      jobs: { jobRateLimitPerHour: 100, defaultModel: null },
      onJobQueued: () => h.worker.nudge(),
      pollIntervalMs: 100,
    });
    await automations.start();
  });
  after(async () => {
    await automations.stop();
    await h.close();
  });

  test('a merged pull request in the code repository becomes a docs pull request citing it', async () => {
    const base = `/v2/automations/${h.project.id}`;
    const created = await h.app.inject({
      method: 'POST',
      url: base,
      headers: { ...bearer(h.adminKey), 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'Docs follow the engine',
        trigger: { type: 'code_change', host: 'github', repository: 'acme/engine' },
        promptTemplate: 'The engine changed: {{event.title}}. {{event.body}} Update the install guide.',
      }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const automation = created.json();

    h.llm.enqueue(
      reply.toolCall('read_file', { path: 'docs/guide.md' }),
      reply.toolCall('edit_file', {
        path: 'docs/guide.md',
        old_text: 'Run the installer.',
        new_text: 'Run the installer with `--yes` to accept the defaults.',
      }),
      reply.toolCall('finish', { title: 'Document the --yes flag', summary: 'Added the new --yes flag.' }),
    );
    const payload = h.github.fake.mergeNewPull('acme', 'engine', {
      title: 'Add --yes to the installer',
      body: 'Accepts every default without asking.',
      head: 'feature/yes',
      mergeCommitSha: randomBytes(20).toString('hex'),
    });
    const delivery = await githubDelivery(HOOK_SECRET, 'pull_request', payload);
    const hook = () =>
      h.app.inject({
        method: 'POST',
        url: `${base}/hooks/github`,
        headers: delivery.headers,
        payload: delivery.body,
      });
    assert.equal((await hook()).statusCode, 202);
    assert.equal((await hook()).statusCode, 200, 'a redelivery is acknowledged');

    const runs = async () =>
      (
        await h.app.inject({
          method: 'GET',
          url: `${base}/${automation.id}/runs`,
          headers: bearer(h.adminKey),
        })
      ).json().runs as { status: string; jobId: string | null }[];
    const jobId = await eventually('the run to start a job', async () => {
      const [run] = await runs();
      return run?.status === 'started' ? run.jobId : null;
    });
    const job = await h.waitForJob(jobId!);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const docsPulls = h.github.fake.pulls('acme', 'docs');
    assert.equal(docsPulls.length, 1);
    const body = docsPulls[0]!.body ?? '';
    assert.match(body, /https:\/\/github\.com\/acme\/engine\/pull\/1/, 'the docs PR cites the source PR');
    assert.match(body, /Add --yes to the installer/);
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes/);
    // The model was given the code change as context.
    assert.ok(h.llm.requests[0]!.userTexts.some((t) => t.includes('Accepts every default without asking.')));
    assert.equal((await runs()).length, 1, 'one run for the merge, however often it was delivered');
  });
});
