// The CI follow-up end to end on each code host, real parts only: the API, the job worker with
// the real agent runner, the git server, the scripted model, the host's fake (GitHub's behind
// Prism), and the CI watcher polling the fake through the real adapters. A job opens its pull
// request; the fake reports a check on the commit the job pushed; the watcher records it and,
// when it failed and the project says fix, sends one follow-up naming the check, which pushes to
// the same branch and pull request; the watch restarts for the new commit. Also: a passing check
// sends nothing, the cap on follow-ups holds, a host error is retried, and a host that never
// reports a status ends the watch at its deadline without a follow-up.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createCiStatusReader } from '../../src/agent/ci/read-ci-status.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { CiWatcher } from '../../src/modules/jobs/index.ts';
import { DocwrightClient, NotFoundError } from '../../src/sdk/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { type RecordedRequest, reply } from '../stand-ins/scripted-llm-server.ts';
import {
  type AgentHarness,
  branchTip,
  type HostKind,
  MODEL_KEY,
  startAgentHarness,
} from './agent-harness.ts';
import { eventually, scriptDocsEdit } from './scripts.ts';

const FAILURE = 'docs/guide.md:9: the link target faq.md does not exist';

for (const kind of ['github', 'gitlab', 'gitea'] as HostKind[]) {
  await forEachBackend(`CI follow-up on ${kind}, end to end`, ({ db }) => {
    let h: AgentHarness;
    let watcher: CiWatcher;
    /** Added to the watcher's clock: a test moves it past a deadline. */
    let clockOffsetMs = 0;

    before(async () => {
      h = await startAgentHarness(db(), { kind });
      watcher = new CiWatcher({
        db: db(),
        logger: createLogger('silent'),
        jobs: { jobRateLimitPerHour: 1000, defaultModel: null },
        readStatus: createCiStatusReader({
          db: db(),
          config: {
            secretKey: h.secretKey,
            defaultModel: null,
            modelCredentials: {
              openai: { apiKey: MODEL_KEY, baseURL: h.llm.baseURL },
              anthropic: { apiKey: null, baseURL: null },
              'openai-compatible': { apiKey: null, baseURL: null },
            },
            codeHostTokens: { github: null, gitlab: null, gitea: null },
            repositories: TEST_REPOSITORIES,
          },
          codeHost: (options) =>
            createCodeHost({ ...options, ...(h.host.apiUrl ? { apiUrl: h.host.apiUrl } : {}) }),
        }),
        now: () => new Date(Date.now() + clockOffsetMs),
        pollIntervalMs: 100,
        minPollDelayMs: 40,
        maxPollDelayMs: 150,
        leaseMs: 10_000,
        onJobQueued: () => h.worker.nudge(),
      });
      await watcher.start();
    });
    after(async () => {
      await watcher?.stop();
      await h?.close();
    });

    const auth = () => ({ authorization: `Bearer ${h.adminKey}` });
    const ciEvents = async (jobId: string) =>
      (await h.events(jobId)).filter((e) => e.type === 'ci_status').map((e) => e.data);
    const ended = (jobId: string, count = 1) =>
      eventually(`ci watch ${count} of ${jobId} to end`, async () => {
        const events = (await ciEvents(jobId)).filter((e) => e.state !== 'watching');
        return events.length >= count ? events[count - 1] : null;
      });
    const watching = (jobId: string, sha: string) =>
      eventually(`the watch of ${sha}`, async () =>
        (await ciEvents(jobId)).some((e) => e.state === 'watching' && e.headSha === sha && e.deadlineAt),
      );
    const completions = async (jobId: string) =>
      (await h.events(jobId)).filter((e) => e.type === 'completed').length;
    const getCi = async (jobId: string) => {
      const res = await h.app.inject({ url: `/v2/agent/${h.project.id}/job/${jobId}/ci`, headers: auth() });
      return { status: res.statusCode, body: res.json() };
    };
    /** A follow-up's model turn: checks it was told about the failed check, then fixes and finishes. */
    const fixTurn = (old_text: string, new_text: string) => [
      (request: RecordedRequest) => {
        const prompt = request.userTexts.at(-1) ?? '';
        assert.match(prompt, /CI checks of the pull request .* failed on commit [0-9a-f]{12}/);
        assert.match(prompt, /"docs-links"/);
        assert.match(prompt, /faq\.md does not exist/);
        return reply.toolCall('edit_file', { path: 'docs/guide.md', old_text, new_text });
      },
      reply.toolCall('finish', { title: 'Document the --yes flag', summary: 'Fixed the failing check.' }),
    ];

    test('a failing check sends one follow-up on the same branch and pull request; its new commit passes', {
      timeout: 60_000,
    }, async () => {
      await h.setSettings({ ci: 'fix', ciMaxFollowUps: 2 });
      scriptDocsEdit(h.llm);
      const created = await h.createJob('Explain the --yes flag of the installer');
      const job = await h.waitForJob(created.id);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      assert.ok(job.prLink);
      const first = (await branchTip(h.git, job.branch!))!;
      await watching(created.id, first);
      assert.equal((await getCi(created.id)).body.state, 'watching');

      h.llm.enqueue(...fixTurn('Restart the service.', 'Restart the service (it takes a minute).'));
      h.host.reportCheck(first, { name: 'docs-links', passed: false, details: FAILURE });
      const failed = await ended(created.id);
      assert.equal(failed.state, 'failed');
      assert.equal(failed.followUp, 'sent');
      assert.deepEqual(
        (failed.checks as { name: string; state: string }[]).map((c) => [c.name, c.state]),
        [['docs-links', 'failure']],
      );

      // The follow-up runs, pushes a new commit to the same branch and updates the same pull request.
      await eventually('the follow-up to complete', async () => (await completions(created.id)) === 2);
      const again = await h.waitForJob(created.id);
      assert.equal(again.status, 'completed', JSON.stringify(again.error));
      assert.equal(again.prLink, job.prLink);
      assert.equal(again.branch, job.branch);
      const second = (await branchTip(h.git, job.branch!))!;
      assert.notEqual(second, first);
      assert.equal(h.host.pulls().length, 1, 'no second pull request');
      assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /it takes a minute/);

      await watching(created.id, second);
      h.host.reportCheck(second, { name: 'docs-links', passed: true, details: 'ok' });
      const passed = await ended(created.id, 2);
      assert.equal(passed.state, 'passed');
      assert.equal(passed.headSha, second);
      const ci = await getCi(created.id);
      assert.equal(ci.status, 200);
      assert.equal(ci.body.state, 'passed');
      assert.equal(ci.body.followUps, 1);
      assert.equal(ci.body.headSha, second);
      assert.equal((await h.events(created.id)).filter((e) => e.type === 'message').length, 1);
    });

    test('the cap on follow-ups holds: a second failure sends none', { timeout: 60_000 }, async () => {
      await h.setSettings({ ci: 'fix', ciMaxFollowUps: 1 });
      scriptDocsEdit(h.llm, 'Document the flag again');
      const created = await h.createJob('Explain the --yes flag once more');
      const job = await h.waitForJob(created.id);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      const first = (await branchTip(h.git, job.branch!))!;
      await watching(created.id, first);
      h.llm.enqueue(...fixTurn('Restart the service.', 'Restart the service, then wait.'));
      h.host.reportCheck(first, { name: 'docs-links', passed: false, details: FAILURE });
      assert.equal((await ended(created.id)).followUp, 'sent');
      await eventually('the follow-up to complete', async () => (await completions(created.id)) === 2);
      const second = (await branchTip(h.git, job.branch!))!;
      await watching(created.id, second);
      h.host.reportCheck(second, { name: 'docs-links', passed: false, details: FAILURE });
      const capped = await ended(created.id, 2);
      assert.equal(capped.state, 'failed');
      assert.equal(capped.followUp, 'cap_reached');
      assert.match(String(capped.outcome), /1 sent, ciMaxFollowUps is 1/);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await h.events(created.id)).filter((e) => e.type === 'message').length, 1);
      assert.equal((await h.waitForJob(created.id)).status, 'completed');
    });

    test('a passing check sends nothing; a host error before it is recorded and retried', {
      timeout: 60_000,
    }, async () => {
      await h.setSettings({ ci: 'fix' });
      h.host.failCiReads(503, 2);
      scriptDocsEdit(h.llm, 'Document the flag a third time');
      const created = await h.createJob('Explain the --yes flag a third time');
      const job = await h.waitForJob(created.id);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      const sha = (await branchTip(h.git, job.branch!))!;
      await eventually('the host error to be recorded', async () =>
        (await ciEvents(created.id)).some((e) => e.observed === 'error'),
      );
      h.host.reportCheck(sha, { name: 'docs-links', passed: true, details: 'ok' });
      const passed = await ended(created.id);
      assert.equal(passed.state, 'passed');
      const events = await h.events(created.id);
      assert.equal(events.filter((e) => e.type === 'message').length, 0);
      const error = events.find((e) => e.type === 'ci_status' && e.data.observed === 'error')!;
      assert.match(String(error.data.error), /503/);
      assert.ok(!String(error.data.error).includes(h.token));
      assert.equal((await h.waitForJob(created.id)).status, 'completed');
    });

    test('a host that never reports a status: the watch ends at its deadline, without a follow-up', {
      timeout: 60_000,
    }, async () => {
      await h.setSettings({ ci: 'fix', ciWatchMinutes: 1 });
      scriptDocsEdit(h.llm, 'Document the flag a fourth time');
      const created = await h.createJob('Explain the --yes flag a fourth time');
      const job = await h.waitForJob(created.id);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      const before = h.host.ciReads();
      await eventually('a few polls', () => h.host.ciReads() >= before + 2);
      assert.equal((await getCi(created.id)).body.observed, 'none');
      clockOffsetMs += 2 * 60_000;
      watcher.wake();
      const timedOut = await ended(created.id);
      clockOffsetMs = 0;
      assert.equal(timedOut.state, 'timed_out');
      assert.match(String(timedOut.outcome), /reported no check for the commit within 1 minutes/);
      assert.equal((await h.events(created.id)).filter((e) => e.type === 'message').length, 0);
      const ci = await getCi(created.id);
      assert.equal(ci.body.state, 'timed_out');
      assert.equal(ci.body.followUps, 0);
      assert.ok(ci.body.polls >= 2);
    });

    test('ci off: no watch, and GET .../ci says why', async () => {
      await h.setSettings({ ci: 'off' });
      scriptDocsEdit(h.llm, 'Document the flag a fifth time');
      const created = await h.createJob('Explain the --yes flag a fifth time');
      assert.equal((await h.waitForJob(created.id)).status, 'completed');
      const ci = await getCi(created.id);
      assert.equal(ci.status, 404);
      assert.equal(ci.body.code, 'job_ci_not_found');
      assert.match(ci.body.error, /ci setting is off/);
      // The typed client reads the same route.
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = h.app.server.address() as AddressInfo;
      const client = new DocwrightClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: h.adminKey });
      const missing = await client.getJobCi(h.project.id, created.id).catch((e: unknown) => e);
      assert.ok(missing instanceof NotFoundError && missing.code === 'job_ci_not_found', String(missing));
      const [earlier] = (await client.listJobs(h.project.id, { limit: 5 })).jobs.slice(-1);
      const typed = await client.getJobCi(h.project.id, earlier!.id);
      assert.ok(['passed', 'failed', 'timed_out'].includes(typed.state), typed.state);
      if (kind === 'github') assert.deepEqual(await h.github.prism.violations(), []);
      assert.deepEqual(h.host.secretLeaks(), []);
    });
  });
}
