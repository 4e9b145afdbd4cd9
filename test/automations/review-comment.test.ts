// The review_comment trigger through the HTTP API and the automation worker, on a real database:
// signed comment webhooks from GitHub (payloads from the GitHub fake, checked against
// @octokit/webhooks-schemas), GitLab (Note Hook) and Gitea (issue_comment, review) become
// follow-ups on the job that opened the pull request; docwright's own comments, comments without
// the automation's mention, comments on other pull requests and redeliveries start nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import type { AutomationRunView } from '../../src/contract/index.ts';
import type { App } from '../../src/http/context.ts';
import { AutomationWorker } from '../../src/modules/automations/index.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { updateProject } from '../../src/modules/projects/service.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, createTestApp, seedProject, TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import {
  giteaCommentPayload,
  giteaDelivery,
  giteaReviewPayload,
  githubDelivery,
  gitlabDelivery,
  gitlabNotePayload,
  type SignedDelivery,
} from '../stand-ins/code-host-webhooks.ts';
import { GitHubFake } from '../stand-ins/github-fake.ts';

const SERVER_KEY = randomBytes(32);
const HOOK_SECRET = `hook-${randomBytes(12).toString('hex')}`;

const schemas = createRequire(import.meta.url)('@octokit/webhooks-schemas/schema.json');
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schemas, 'webhooks');
const validators = {
  pull_request_review_comment: ajv.compile({
    $ref: 'webhooks#/definitions/pull_request_review_comment$created',
  }),
  issue_comment: ajv.compile({ $ref: 'webhooks#/definitions/issue_comment$created' }),
  pull_request_review: ajv.compile({ $ref: 'webhooks#/definitions/pull_request_review$submitted' }),
};
/** A GitHub delivery of a payload GitHub could send (checked against its published schema). */
async function github(event: keyof typeof validators, payload: unknown, deliveryId?: string) {
  const valid = validators[event];
  assert.ok(valid(payload), JSON.stringify(valid.errors?.slice(0, 3)));
  return githubDelivery(HOOK_SECRET, event, payload, deliveryId);
}

interface ReadCall {
  path: string;
  branch: string;
  startLine: number;
  endLine: number;
}

await forEachBackend('review_comment automations', ({ db }) => {
  let app: App;
  let worker: AutomationWorker;
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const fake = new GitHubFake();
  /** What the worker asked the line reader for (the file is ten lines "line 1" ... "line 10"). */
  const reads: ReadCall[] = [];

  before(async () => {
    await fake.start();
    app = await createTestApp(db(), { secretKey: SERVER_KEY });
    worker = new AutomationWorker({
      db: db(),
      logger: createLogger('silent'),
      jobs: { jobRateLimitPerHour: 1000, defaultModel: 'openai:gpt-test' },
      now,
      pollIntervalMs: 50,
      readBranchLines: async (input) => {
        reads.push({
          path: input.path,
          branch: input.branch,
          startLine: input.startLine,
          endLine: input.endLine,
        });
        const file = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
        return file.slice(input.startLine - 1, input.endLine);
      },
    });
    await worker.start();
  });
  after(async () => {
    await worker.stop();
    await app.close();
    await fake.stop();
  });

  /** A project on its own docs repository, with a job that opened pull request #1 from `branch`. */
  async function setUp(
    input: { automation?: Record<string, unknown>; host?: 'github' | 'gitlab' | 'gitea' } = {},
  ) {
    const host = input.host ?? 'github';
    const name = `docs-${randomBytes(4).toString('hex')}`;
    const repositoryUrl = `https://${host === 'github' ? 'github.com' : `${host}.example`}/acme/${name}`;
    const seeded = await seedProject(db(), { repositoryUrl, codeHostKind: host });
    await setProjectSecret(db(), SERVER_KEY, seeded.project.id, 'codeHostWebhookSecret', HOOK_SECRET);
    const base = `/v2/automations/${seeded.project.id}`;
    const auth = { ...bearer(seeded.adminKey), 'content-type': 'application/json' };
    const created = await app.inject({
      method: 'POST',
      url: `/v2/agent/${seeded.project.id}/job`,
      headers: auth,
      payload: JSON.stringify({ prompt: 'Write the install guide' }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const jobId = created.json().id as string;
    const branch = `docwright/install-guide-${jobId.slice(-6)}`;
    let pullUrl: string;
    if (host === 'github') {
      fake.addRepo({ owner: 'acme', name });
      pullUrl = fake.addOpenPull('acme', name, { title: 'Install guide', head: branch }).html_url;
    } else {
      pullUrl = host === 'gitlab' ? `${repositoryUrl}/-/merge_requests/1` : `${repositoryUrl}/pulls/1`;
    }
    await db().query("UPDATE jobs SET status = 'completed', pr_link = $2, branch = $3 WHERE id = $1", [
      jobId,
      pullUrl,
      branch,
    ]);
    const automation = await app.inject({
      method: 'POST',
      url: base,
      headers: auth,
      payload: JSON.stringify({
        name: 'Answer reviews',
        trigger: { type: 'review_comment', ...input.automation },
        promptTemplate: 'Reply to {{event.author}} on {{event.path}}.',
      }),
    });
    assert.equal(automation.statusCode, 201, automation.body);
    const hook = (delivery: SignedDelivery) =>
      app.inject({
        method: 'POST',
        url: `${base}/hooks/${host}`,
        headers: delivery.headers,
        payload: delivery.body,
      });
    const runs = async () =>
      (
        await app.inject({
          method: 'GET',
          url: `${base}/${automation.json().id}/runs?limit=100`,
          headers: bearer(seeded.adminKey),
        })
      ).json().runs as AutomationRunView[];
    // Bounded by wall time only to end a hang; a loaded machine can take seconds to poll a few times.
    const settled = async (count: number) => {
      for (const giveUpAt = Date.now() + 30_000; Date.now() < giveUpAt; ) {
        const list = await runs();
        if (
          list.length === count &&
          list.every((r) => r.status !== 'queued' || Date.parse(r.dueAt) > now().getTime())
        )
          return list;
        worker.wake();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.fail(`did not settle at ${count} runs: ${JSON.stringify(await runs())}`);
    };
    const job = async () =>
      (
        await app.inject({
          method: 'GET',
          url: `/v2/agent/${seeded.project.id}/job/${jobId}`,
          headers: bearer(seeded.adminKey),
        })
      ).json();
    const prompts = async () =>
      (
        await db().query<{ prompt: string }>(
          'SELECT prompt FROM job_prompts WHERE job_id = $1 ORDER BY seq',
          [jobId],
        )
      ).map((r) => r.prompt);
    const endJob = () => db().query("UPDATE jobs SET status = 'completed' WHERE id = $1", [jobId]);
    return { seeded, name, repositoryUrl, jobId, branch, pullUrl, hook, runs, settled, job, prompts, endJob };
  }

  describe('the trigger', () => {
    test('mention is normalised; a bad one, or a field of another trigger, is a 400 naming it', async () => {
      const seeded = await seedProject(db());
      const post = (trigger: unknown) =>
        app.inject({
          method: 'POST',
          url: `/v2/automations/${seeded.project.id}`,
          headers: { ...bearer(seeded.adminKey), 'content-type': 'application/json' },
          payload: JSON.stringify({ name: 'r', trigger, promptTemplate: 'p' }),
        });
      const ok = await post({ type: 'review_comment', mention: 'docwright' });
      assert.equal(ok.statusCode, 201, ok.body);
      assert.deepEqual(ok.json().trigger, { type: 'review_comment', mention: '@docwright' });
      for (const [trigger, field] of [
        [{ type: 'review_comment', mention: '@ nope' }, 'trigger.mention'],
        [{ type: 'review_comment', cron: '* * * * *' }, 'trigger.cron'],
        [{ type: 'code_change', host: 'github', repository: 'a/b', mention: '@x' }, 'trigger.mention'],
      ] as const) {
        const res = await post(trigger);
        assert.equal(res.statusCode, 400, JSON.stringify(trigger));
        assert.equal(res.json().code, 'invalid_automation');
        assert.equal(res.json().details[0].name, field);
      }
    });
  });

  describe('GitHub', () => {
    test('a comment on lines becomes one follow-up on the same job, with its thread and lines', async () => {
      const s = await setUp();
      // The thread's first comment, by someone else, then the reply that starts the run: both are
      // runs (every comment is), and the reply's prompt quotes the first.
      const first = fake.commentOnPullLines('acme', s.name, 1, {
        body: 'This step is out of date.',
        path: 'docs/install.md',
        line: 5,
        startLine: 4,
        author: 'maintainer',
      });
      // The job is running again (another follow-up): the run waits for it.
      await db().query("UPDATE jobs SET status = 'active' WHERE id = $1", [s.jobId]);
      const delivery = await github('pull_request_review_comment', first);
      const accepted = await s.hook(delivery);
      assert.equal(accepted.statusCode, 202, accepted.body);
      assert.equal(accepted.json().runs.length, 1);
      const redelivered = await s.hook(delivery);
      assert.equal(redelivered.statusCode, 200);
      assert.deepEqual(redelivered.json().runs, []);
      const retold = await s.hook(await github('pull_request_review_comment', first));
      assert.equal(retold.statusCode, 200, 'the same comment under a new delivery id');
      assert.deepEqual(retold.json().runs, []);
      let [run] = await s.settled(1);
      assert.equal(run!.status, 'queued', 'waits while the job runs');
      assert.ok(Date.parse(run!.dueAt) > now().getTime());
      await s.endJob();
      offsetMs += 31_000;
      [run] = await s.settled(1);
      assert.equal(run!.status, 'started', JSON.stringify(run));
      assert.equal(run!.jobId, s.jobId, 'the same job');
      assert.equal(run!.followedUp, true);
      assert.equal(run!.trigger, 'review_comment');
      assert.deepEqual(run!.sources, [(first.comment as unknown as { html_url: string }).html_url]);
      const job = await s.job();
      assert.equal(job.status, 'active', 'the follow-up re-activated it');
      assert.equal(job.branch, s.branch);
      assert.equal(job.prLink, s.pullUrl);
      let prompts = await s.prompts();
      assert.equal(prompts.length, 2);
      assert.match(prompts[1]!, /@maintainer commented on the pull request this job opened/);
      assert.match(prompts[1]!, /> This step is out of date\./);
      assert.match(prompts[1]!, /docs\/install\.md, lines 4–5/);
      assert.match(prompts[1]!, />4 \| line 4\n>5 \| line 5\n 6 \| line 6/);
      assert.match(prompts[1]!, /Reply to maintainer on docs\/install\.md\./);
      assert.deepEqual(reads.at(-1), { path: 'docs/install.md', branch: s.branch, startLine: 1, endLine: 8 });

      // A reply in the thread: its prompt quotes the comment it answers.
      await s.endJob();
      const reply = fake.commentOnPullLines('acme', s.name, 1, {
        body: 'Also mention the --yes flag.',
        path: 'docs/install.md',
        line: 5,
        inReplyTo: first.comment.id,
        author: 'lead',
      });
      assert.equal((await s.hook(await github('pull_request_review_comment', reply))).statusCode, 202);
      const runs = await s.settled(2);
      assert.equal(runs[0]!.status, 'started');
      prompts = await s.prompts();
      assert.equal(prompts.length, 3);
      assert.match(prompts[2]!, /> Also mention the --yes flag\./);
      assert.match(
        prompts[2]!,
        /The thread it replies to, oldest first:\n@maintainer:\n> This step is out of date\./,
      );
    });

    test("docwright's own comments start nothing: its login, its GitHub App, the marker", async () => {
      const s = await setUp();
      await updateProject(
        db(),
        s.seeded.project.id,
        {
          settings: { codeHostBotLogin: '@docwright-bot', githubAppId: '4242', githubAppInstallationId: '1' },
        },
        TEST_REPOSITORIES,
      );
      const cases: [Record<string, unknown>, RegExp][] = [
        [
          fake.commentOnPull('acme', s.name, 1, { body: 'I pushed a fix.', author: 'DocWright-Bot' }),
          /own account/,
        ],
        [
          fake.commentOnPull('acme', s.name, 1, {
            body: 'Checks passed.',
            author: 'docwright-app[bot]',
            viaApp: { id: 4242, slug: 'docwright-app' },
          }),
          /GitHub App/,
        ],
        [fake.commentOnPull('acme', s.name, 1, { body: 'Summary <!-- docwright -->' }), /marker/],
      ];
      for (const [payload, reason] of cases) {
        const res = await s.hook(await github('issue_comment', payload));
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().runs, []);
        assert.match(res.json().ignored, reason);
      }
      const someone = await s.hook(
        await github('issue_comment', fake.commentOnPull('acme', s.name, 1, { body: 'Please shorten it.' })),
      );
      assert.equal(someone.statusCode, 202, someone.body);
      assert.equal((await s.settled(1))[0]!.status, 'started');
      assert.match((await s.prompts())[1]!, /@reviewer commented on the pull request/);
    });

    test('a mention filter passes only comments that mention the handle; reviews with a body count', async () => {
      const s = await setUp({ automation: { mention: '@docwright' } });
      const quiet = await s.hook(
        await github(
          'issue_comment',
          fake.commentOnPull('acme', s.name, 1, { body: 'Looks good, @docwrighter.' }),
        ),
      );
      assert.equal(quiet.statusCode, 200);
      assert.match(quiet.json().ignored, /does not mention @docwright/);
      const empty = await s.hook(
        await github(
          'pull_request_review',
          fake.reviewPull('acme', s.name, 1, { body: null, state: 'approved' }),
        ),
      );
      assert.match(empty.json().ignored, /without a body/);
      const review = await s.hook(
        await github(
          'pull_request_review',
          fake.reviewPull('acme', s.name, 1, {
            body: '@DocWright please fix the typos.',
            state: 'changes_requested',
          }),
        ),
      );
      assert.equal(review.statusCode, 202, review.body);
      const [run] = await s.settled(1);
      assert.equal(run!.status, 'started');
      assert.match(
        (await s.prompts())[1]!,
        /@reviewer reviewed the pull request[\s\S]*> @DocWright please fix the typos\./,
      );
    });

    test('a comment on a pull request no docwright job opened is acknowledged and ignored, saying why', async () => {
      const s = await setUp();
      const other = fake.addOpenPull('acme', s.name, { title: 'By hand', head: 'someone/branch' });
      const res = await s.hook(
        await github('issue_comment', fake.commentOnPull('acme', s.name, other.number, { body: 'Hm.' })),
      );
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().runs, []);
      assert.match(res.json().ignored, /which no docwright job of this project opened/);
      // A branch named like a docwright job's in another repository is not the job's either.
      fake.addRepo({ owner: 'acme', name: `${s.name}-fork` });
      fake.addOpenPull('acme', `${s.name}-fork`, { title: 'Same branch name', head: s.branch });
      const lines = fake.commentOnPullLines('acme', `${s.name}-fork`, 1, {
        body: 'x',
        path: 'a.md',
        line: 1,
      });
      const elsewhere = await s.hook(await github('pull_request_review_comment', lines));
      assert.equal(elsewhere.statusCode, 200);
      assert.match(elsewhere.json().ignored, /no docwright job/);
      assert.equal((await s.runs()).length, 0);
    });
  });

  describe('GitLab and Gitea', () => {
    test('a GitLab note on lines of the merge request follows up its job with the file and lines', async () => {
      const s = await setUp({ host: 'gitlab' });
      const note = gitlabNotePayload({
        path: `acme/${s.name}`,
        webUrl: 'https://gitlab.example',
        iid: 1,
        sourceBranch: s.branch,
        noteId: 901,
        note: 'Use a numbered list here.',
        file: { path: 'docs/install.md', line: 3, startLine: 2 },
      });
      const delivery = gitlabDelivery(HOOK_SECRET, 'Note Hook', note);
      const res = await s.hook(delivery);
      assert.equal(res.statusCode, 202, res.body);
      assert.equal((await s.hook(delivery)).statusCode, 200, 'a redelivery');
      const retold = await s.hook(gitlabDelivery(HOOK_SECRET, 'Note Hook', note));
      assert.deepEqual(retold.json().runs, [], 'the same note under a new delivery id');
      assert.equal((await s.settled(1))[0]!.jobId, s.jobId);
      const prompt = (await s.prompts())[1]!;
      assert.match(prompt, /> Use a numbered list here\./);
      assert.match(prompt, /docs\/install\.md, lines 2–3/);
      assert.match(prompt, />2 \| line 2\n>3 \| line 3/);
      // A note on an issue is not a merge request's.
      const onIssue = {
        ...note,
        object_attributes: { ...(note.object_attributes as object), noteable_type: 'Issue' },
      };
      const ignored = await s.hook(gitlabDelivery(HOOK_SECRET, 'Note Hook', onIssue));
      assert.equal(ignored.statusCode, 200);
      assert.match(ignored.json().ignored, /not on a merge request/);
      assert.equal((await s.hook(gitlabDelivery('wrong', 'Note Hook', note))).statusCode, 401);
    });

    test('Gitea: a conversation comment and a review each follow up the job', async () => {
      const s = await setUp({ host: 'gitea' });
      const comment = giteaCommentPayload({
        fullName: `acme/${s.name}`,
        webUrl: 'https://gitea.example',
        number: 1,
        commentId: 31,
        body: 'The title should be shorter.',
      });
      assert.equal((await s.hook(giteaDelivery('wrong', 'issue_comment', comment))).statusCode, 401);
      const res = await s.hook(
        giteaDelivery(HOOK_SECRET, 'issue_comment', comment, undefined, 'pull_request_comment'),
      );
      assert.equal(res.statusCode, 202, res.body);
      await s.settled(1);
      await s.endJob();
      const review = giteaReviewPayload({
        fullName: `acme/${s.name}`,
        webUrl: 'https://gitea.example',
        number: 1,
        head: s.branch,
        content: 'Please add an example.',
      });
      const reviewed = await s.hook(
        giteaDelivery(HOOK_SECRET, 'pull_request_comment', review, undefined, 'pull_request_review_comment'),
      );
      assert.equal(reviewed.statusCode, 202, reviewed.body);
      const runs = await s.settled(2);
      assert.ok(runs.every((r) => r.status === 'started' && r.jobId === s.jobId));
      const prompts = await s.prompts();
      assert.match(prompts[1]!, /> The title should be shorter\./);
      assert.match(prompts[2]!, /@reviewer reviewed the pull request[\s\S]*> Please add an example\./);
    });
  });

  describe('delivery ids', () => {
    test('are pruned after a week, in batches', async () => {
      const seeded = await seedProject(db());
      await db().query(
        `INSERT INTO automation_inbound_deliveries (project_id, host, delivery_id, received_at)
         SELECT $1, 'github', 'old-' || i, now() - interval '8 days' FROM generate_series(1, 2500) i`,
        [seeded.project.id],
      );
      await db().query(
        `INSERT INTO automation_inbound_deliveries (project_id, host, delivery_id, received_at)
         VALUES ($1, 'github', 'recent', now() - interval '6 days')`,
        [seeded.project.id],
      );
      assert.ok((await worker.pruneDeliveries()) >= 2500);
      const left = await db().query<{ delivery_id: string }>(
        'SELECT delivery_id FROM automation_inbound_deliveries WHERE project_id = $1',
        [seeded.project.id],
      );
      assert.deepEqual(
        left.map((r) => r.delivery_id),
        ['recent'],
      );
    });
  });
});
