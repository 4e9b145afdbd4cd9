// The CI follow-up woken by the code host's CI webhooks, end to end on each host: the watcher
// here polls at once after a push and then only every ten minutes, so a follow-up within the
// test's time can only come from the webhook. The host's signed CI webhook (GitHub's status
// event, checked against @octokit/webhooks-schemas; GitLab's Pipeline Hook; Gitea's status) for
// the commit the job pushed makes the watcher poll now, through the real adapter, and the failed
// check sends the follow-up. A webhook for a commit nobody watches, or with a bad signature,
// changes nothing and asks the host nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { Ajv } from 'ajv';
import { createCiStatusReader } from '../../src/agent/ci/read-ci-status.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { CiWatcher } from '../../src/modules/jobs/index.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createLogger } from '../../src/util/logger.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import {
  giteaDelivery,
  giteaStatusPayload,
  githubDelivery,
  gitlabDelivery,
  gitlabPipelinePayload,
  type SignedDelivery,
} from '../stand-ins/code-host-webhooks.ts';
import { type RecordedRequest, reply } from '../stand-ins/scripted-llm-server.ts';
import {
  type AgentHarness,
  branchTip,
  type HostKind,
  MODEL_KEY,
  startAgentHarness,
} from './agent-harness.ts';
import { OWNER, REPO } from './code-host-stands.ts';
import { eventually, scriptDocsEdit } from './scripts.ts';

const FAILURE = 'docs/guide.md:9: the link target faq.md does not exist';
const HOOK_SECRET = `hook-${randomBytes(12).toString('hex')}`;
const TEN_MINUTES = 600_000;

const schemas = createRequire(import.meta.url)('@octokit/webhooks-schemas/schema.json');
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schemas, 'webhooks');
const validStatus = ajv.compile({ $ref: 'webhooks#/definitions/status$event' });

for (const kind of ['github', 'gitlab', 'gitea'] as HostKind[]) {
  await forEachBackend(`CI follow-up woken by ${kind} webhooks`, ({ db }) => {
    let h: AgentHarness;
    let watcher: CiWatcher;

    before(async () => {
      h = await startAgentHarness(db(), { kind });
      await setProjectSecret(db(), h.secretKey, h.project.id, 'codeHostWebhookSecret', HOOK_SECRET);
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
        // Only a notification (a new push, or a CI webhook) makes it poll within the test.
        pollIntervalMs: TEN_MINUTES,
        minPollDelayMs: TEN_MINUTES,
        maxPollDelayMs: TEN_MINUTES,
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
    const getCi = async (jobId: string) =>
      (await h.app.inject({ url: `/v2/agent/${h.project.id}/job/${jobId}/ci`, headers: auth() })).json();
    const send = async (delivery: SignedDelivery) => {
      const res = await h.app.inject({
        method: 'POST',
        url: `/v2/automations/${h.project.id}/hooks/${kind}`,
        headers: delivery.headers,
        payload: delivery.body,
      });
      return { status: res.statusCode, body: res.json() };
    };

    /** The host reports the check failed on `sha`, and this is its CI webhook telling of it. */
    const failAndDeliver = async (sha: string, secret: string): Promise<SignedDelivery> => {
      if (kind === 'github') {
        const fake = h.github.fake;
        fake.addCommitStatus(OWNER, REPO, {
          sha,
          context: 'docs-links',
          state: 'failure',
          description: FAILURE,
        });
        const payload = fake.statusWebhook(OWNER, REPO, sha, 'docs-links');
        assert.ok(validStatus(payload), JSON.stringify(validStatus.errors?.slice(0, 3)));
        return githubDelivery(secret, 'status', payload);
      }
      h.host.reportCheck(sha, { name: 'docs-links', passed: false, details: FAILURE });
      if (kind === 'gitlab') {
        const payload = gitlabPipelinePayload({
          path: `${OWNER}/${REPO}`,
          pipelineId: 9001,
          iid: 1,
          sha,
          ref: 'main',
          status: 'failed',
          webUrl: 'https://gitlab.example.test',
          jobs: [{ id: 9002, name: 'docs-links', status: 'failed' }],
        });
        return gitlabDelivery(secret, 'Pipeline Hook', payload);
      }
      const payload = giteaStatusPayload({
        fullName: `${OWNER}/${REPO}`,
        sha,
        context: 'docs-links',
        state: 'failure',
        description: FAILURE,
        targetUrl: 'https://ci.example.test/builds/1',
        webUrl: 'https://gitea.example.test',
      });
      return giteaDelivery(secret, 'status', payload);
    };

    test('a signed CI webhook for the pushed commit makes the watch poll now; the follow-up is sent', {
      timeout: 60_000,
    }, async () => {
      await h.setSettings({ ci: 'fix', ciMaxFollowUps: 1 });
      scriptDocsEdit(h.llm);
      const created = await h.createJob('Explain the --yes flag of the installer');
      const job = await h.waitForJob(created.id);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      const sha = (await branchTip(h.git, job.branch!))!;
      // The first poll, at once after the push; the next is ten minutes away.
      await eventually('the first poll', async () => (await getCi(created.id)).polls >= 1);
      const reads = h.host.ciReads();

      const delivery = await failAndDeliver(sha, HOOK_SECRET);

      // A webhook for a commit no watch watches: answered, ignored with the reason, no poll.
      const stranger = await failAndDeliver('0123456789abcdef0123456789abcdef01234567', HOOK_SECRET);
      const ignored = await send(stranger);
      assert.equal(ignored.status, 200, JSON.stringify(ignored.body));
      assert.deepEqual(ignored.body.ci, { sha: '0123456789abcdef0123456789abcdef01234567', jobs: [] });
      assert.match(ignored.body.ignored, /no CI watch/);
      assert.deepEqual(ignored.body.runs, []);

      // The right commit with a wrong signature: 401, no poll.
      const forged = await failAndDeliver(sha, 'not-the-secret');
      const refused = await send(forged);
      assert.equal(refused.status, 401, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'webhook_signature_invalid');

      await new Promise((r) => setTimeout(r, 400));
      assert.equal(h.host.ciReads(), reads, 'the host was not asked again');
      const still = await getCi(created.id);
      assert.equal(still.state, 'watching');
      assert.equal(still.polls, 1);

      h.llm.enqueue(
        (request: RecordedRequest) => {
          const prompt = request.userTexts.at(-1) ?? '';
          assert.match(prompt, /"docs-links"/);
          assert.match(prompt, /faq\.md does not exist/);
          return reply.toolCall('edit_file', {
            path: 'docs/guide.md',
            old_text: 'Restart the service.',
            new_text: 'Restart the service (it takes a minute).',
          });
        },
        reply.toolCall('finish', { title: 'Document the --yes flag', summary: 'Fixed the failing check.' }),
      );
      const accepted = await send(delivery);
      assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
      assert.deepEqual(accepted.body.ci, { sha, jobs: [created.id] });
      assert.equal(accepted.body.ignored, null);

      const ended = await eventually('the watch to end', async () =>
        (await ciEvents(created.id)).find((e) => e.state !== 'watching'),
      );
      assert.equal(ended.state, 'failed');
      assert.equal(ended.followUp, 'sent');
      assert.equal(ended.headSha, sha);
      await eventually(
        'the follow-up to complete',
        async () => (await h.events(created.id)).filter((e) => e.type === 'completed').length === 2,
      );

      // A redelivery after the watch moved on: harmless, nothing watches that commit any more.
      const again = await send(delivery);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body.ci, { sha, jobs: [] });
      assert.equal((await h.events(created.id)).filter((e) => e.type === 'message').length, 1);
      assert.deepEqual(h.host.secretLeaks(), []);
    });
  });
}
