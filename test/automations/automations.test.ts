// Automations end to end through the HTTP API and the automation worker, on a real database:
// the resource, the trigger URL, signed code-host webhooks (GitHub payloads from the GitHub fake,
// checked against @octokit/webhooks-schemas), redeliveries, guardrails and schedules with a
// clock the test moves.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import type { AutomationRunView } from '../../src/contract/index.ts';
import type { App } from '../../src/http/context.ts';
import { AutomationWorker } from '../../src/modules/automations/index.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import {
  giteaDelivery,
  giteaMergePayload,
  githubDelivery,
  gitlabDelivery,
  gitlabMergePayload,
  type SignedDelivery,
} from '../stand-ins/code-host-webhooks.ts';
import { GitHubFake } from '../stand-ins/github-fake.ts';

const SERVER_KEY = randomBytes(32);
const HOOK_SECRET = `hook-${randomBytes(12).toString('hex')}`;

// GitHub's published webhook schemas: every payload the fake sends must be one GitHub could send.
const schemas = createRequire(import.meta.url)('@octokit/webhooks-schemas/schema.json');
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schemas, 'webhooks');
const validPullRequestClosed = ajv.compile({ $ref: 'webhooks#/definitions/pull_request$closed' });

const sha = () => randomBytes(20).toString('hex');

await forEachBackend('automations', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  let base: string;
  // The worker's clock: real time plus an offset the tests move forward (intake stamps real time).
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const advance = (ms: number) => {
    offsetMs += ms;
  };
  /** Moves the clock to `at` (never backwards). */
  const moveTo = (at: Date) => {
    offsetMs = Math.max(offsetMs, at.getTime() - Date.now());
  };
  let worker: AutomationWorker;
  const github = new GitHubFake();
  github.addRepo({ owner: 'acme', name: 'engine' });

  before(async () => {
    await github.start();
    app = await createTestApp(db(), { secretKey: SERVER_KEY });
    seeded = await seedProject(db());
    base = `/v2/automations/${seeded.project.id}`;
    await setProjectSecret(db(), SERVER_KEY, seeded.project.id, 'codeHostWebhookSecret', HOOK_SECRET);
    worker = new AutomationWorker({
      db: db(),
      logger: createLogger('silent'),
      jobs: { jobRateLimitPerHour: 1000, defaultModel: 'openai:gpt-test' },
      now,
      pollIntervalMs: 50,
    });
    await worker.start();
  });
  after(async () => {
    await worker.stop();
    await app.close();
    await github.stop();
  });

  const admin = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', path: string, payload?: unknown) =>
    app.inject({
      method,
      url: `${base}${path}`,
      headers: {
        ...bearer(seeded.adminKey),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      payload: payload === undefined ? undefined : JSON.stringify(payload),
    });
  const hook = (host: string, delivery: SignedDelivery) =>
    app.inject({
      method: 'POST',
      url: `${base}/hooks/${host}`,
      headers: delivery.headers,
      payload: delivery.body,
    });
  const runsOf = async (id: string) =>
    (await admin('GET', `/${id}/runs?limit=100`)).json().runs as AutomationRunView[];
  /** Waits until the automation has `count` runs, none of them queued and due. */
  // Waits on the worker, not on a clock: the bound is only there to end a test that hangs, and is
  // wide because a loaded machine can take seconds to poll a few times.
  const settled = async (id: string, count: number) => {
    for (const giveUpAt = Date.now() + 30_000; Date.now() < giveUpAt; ) {
      const runs = await runsOf(id);
      if (
        runs.length === count &&
        runs.every((r) => r.status !== 'queued' || Date.parse(r.dueAt) > now().getTime())
      ) {
        return runs;
      }
      worker.wake();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.fail(`automation ${id} did not settle at ${count} runs: ${JSON.stringify(await runsOf(id))}`);
  };
  const codeChange = (extra: Record<string, unknown> = {}, limits: Record<string, unknown> = {}) =>
    admin('POST', '', {
      name: 'Docs follow the engine',
      trigger: { type: 'code_change', host: 'github', repository: 'acme/engine', ...extra },
      promptTemplate: 'Update the docs for {{event.title}} by {{event.author}}:\n{{event.body}}',
      limits,
    });

  describe('the resource', () => {
    test('create, get, list, patch, delete; read keys may only read', async () => {
      const created = await codeChange();
      assert.equal(created.statusCode, 201, created.body);
      const automation = created.json();
      assert.match(automation.id, /^aut_[0-9A-Za-z]{16}$/);
      assert.deepEqual(automation.trigger, {
        type: 'code_change',
        host: 'github',
        repository: 'acme/engine',
        on: 'merged_pull_request',
        branches: ['main'],
      });
      assert.deepEqual(automation.limits, {
        maxOpenPullRequests: 3,
        dailyRunCap: 50,
        grouping: false,
        quietPeriodSeconds: 0,
      });
      assert.equal(automation.triggerUrl, null);
      const read = (path: string) =>
        app.inject({ method: 'GET', url: `${base}${path}`, headers: bearer(seeded.readKey) });
      assert.equal((await read(`/${automation.id}`)).json().name, 'Docs follow the engine');
      assert.ok((await read('')).json().automations.some((a: { id: string }) => a.id === automation.id));
      const denied = await app.inject({
        method: 'POST',
        url: base,
        headers: { ...bearer(seeded.readKey), 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(denied.statusCode, 403);
      const patched = await admin('PATCH', `/${automation.id}`, {
        enabled: false,
        limits: { dailyRunCap: 5 },
      });
      assert.equal(patched.json().enabled, false);
      assert.equal(patched.json().limits.dailyRunCap, 5);
      assert.equal(patched.json().limits.maxOpenPullRequests, 3);
      assert.equal((await admin('DELETE', `/${automation.id}`)).statusCode, 204);
      const gone = await admin('GET', `/${automation.id}`);
      assert.equal(gone.statusCode, 404);
      assert.equal(gone.json().code, 'automation_not_found');
    });

    test('a bad trigger is a 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ type: 'schedule', cron: '0 9 * *' }, 'trigger.cron'],
        [{ type: 'schedule', cron: '* * * * * *' }, 'trigger.cron'],
        [{ type: 'schedule', cron: '0 9 * * *', timezone: 'Mars/Olympus' }, 'trigger.timezone'],
        [{ type: 'code_change', host: 'github' }, 'trigger.repository'],
        [
          { type: 'code_change', host: 'github', repository: 'a/b', on: 'push', labels: ['docs'] },
          'trigger.labels',
        ],
        [{ type: 'webhook', cron: '* * * * *' }, 'trigger.cron'],
      ];
      for (const [trigger, field] of cases) {
        const res = await admin('POST', '', { name: 'x', trigger, promptTemplate: 'p' });
        assert.equal(res.statusCode, 400, JSON.stringify(trigger));
        assert.equal(res.json().code, 'invalid_automation');
        assert.equal(res.json().details[0].name, field);
      }
      const unknownType = await admin('POST', '', {
        name: 'x',
        trigger: { type: 'slack' },
        promptTemplate: 'p',
      });
      assert.equal(unknownType.statusCode, 400);
    });
  });

  describe('the trigger URL', () => {
    test('202 with the run id and the body as context; a wrong secret is 401 and queues nothing', async () => {
      const created = (
        await admin('POST', '', {
          name: 'On demand',
          trigger: { type: 'webhook' },
          promptTemplate: 'Release {{event.body.version}}',
        })
      ).json();
      assert.match(created.triggerSecret, /^dwt_[0-9A-Za-z]{40}$/);
      assert.equal(created.triggerUrl, `http://127.0.0.1:3000${base}/${created.id}/trigger`);
      assert.equal((await admin('GET', `/${created.id}`)).json().triggerSecret, undefined, 'shown once');
      const call = (secret: string | null, payload: unknown, headers: Record<string, string> = {}) =>
        app.inject({
          method: 'POST',
          url: `${base}/${created.id}/trigger`,
          headers: {
            'content-type': 'application/json',
            ...(secret === null ? {} : { authorization: `Bearer ${secret}` }),
            ...headers,
          },
          payload: JSON.stringify(payload),
        });
      for (const secret of [null, 'dwt_wrong', `${created.triggerSecret}x`, seeded.adminKey]) {
        const refused = await call(secret, { version: '1.0' });
        assert.equal(refused.statusCode, 401);
        assert.equal(refused.json().code, 'trigger_unauthorized');
        assert.ok(!refused.body.includes(created.triggerSecret));
      }
      assert.equal((await runsOf(created.id)).length, 0, 'nothing queued');
      let deep: unknown = 'x';
      for (let i = 0; i < 20; i++) deep = { deep };
      assert.equal((await call(created.triggerSecret, deep)).statusCode, 400);
      assert.equal((await call(created.triggerSecret, { big: 'x'.repeat(70_000) })).statusCode, 413);

      const accepted = await call(
        created.triggerSecret,
        { version: '2.4.0' },
        { 'idempotency-key': 'release-2.4.0' },
      );
      assert.equal(accepted.statusCode, 202);
      const again = await call(
        created.triggerSecret,
        { version: '2.4.0' },
        { 'idempotency-key': 'release-2.4.0' },
      );
      assert.equal(again.json().runId, accepted.json().runId, 'a retried call queues one run');
      const [run] = await settled(created.id, 1);
      assert.equal(run!.id, accepted.json().runId);
      assert.equal(run!.status, 'started');
      const job = await app.inject({
        method: 'GET',
        url: `/v2/agent/${seeded.project.id}/job/${run!.jobId}`,
        headers: bearer(seeded.adminKey),
      });
      assert.equal(job.json().prompt, 'Release 2.4.0');

      await admin('PATCH', `/${created.id}`, { enabled: false });
      const disabled = await call(created.triggerSecret, {});
      assert.equal(disabled.statusCode, 409);
      assert.equal(disabled.json().code, 'automation_disabled');
      const rotated = (
        await admin('PATCH', `/${created.id}`, { enabled: true, rotateTriggerSecret: true })
      ).json();
      assert.equal((await call(created.triggerSecret, {})).statusCode, 401, 'the old secret stops working');
      assert.equal((await call(rotated.triggerSecret, {})).statusCode, 202);
    });
  });

  describe('code_change from GitHub', () => {
    test('a merged pull request starts one job citing it; redeliveries and duplicates start none', async () => {
      const automation = (await codeChange({}, { maxOpenPullRequests: 1 })).json();
      const payload = github.mergeNewPull('acme', 'engine', {
        title: 'Add the --dry-run flag',
        body: 'Lets users preview a deploy.',
        head: 'feature/dry-run',
        mergeCommitSha: sha(),
      });
      assert.ok(validPullRequestClosed(payload), JSON.stringify(validPullRequestClosed.errors?.slice(0, 3)));

      const forged = await githubDelivery('not-the-secret', 'pull_request', payload);
      const refused = await hook('github', forged);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().code, 'webhook_signature_invalid');
      const unsigned = await hook('github', {
        ...forged,
        headers: { ...forged.headers, 'x-hub-signature-256': '' },
      });
      assert.equal(unsigned.statusCode, 401);
      assert.equal((await runsOf(automation.id)).length, 0, 'a bad signature queues nothing');

      const delivery = await githubDelivery(HOOK_SECRET, 'pull_request', payload);
      const accepted = await hook('github', delivery);
      assert.equal(accepted.statusCode, 202, accepted.body);
      assert.equal(accepted.json().runs.length, 1);
      const redelivered = await hook('github', delivery);
      assert.equal(redelivered.statusCode, 200);
      assert.deepEqual(redelivered.json().runs, []);
      // The same merge told again under a new delivery id.
      const retold = await hook('github', await githubDelivery(HOOK_SECRET, 'pull_request', payload));
      assert.deepEqual(retold.json().runs, []);

      const [run] = await settled(automation.id, 1);
      assert.equal(run!.status, 'started');
      assert.deepEqual(run!.sources, [(payload.pull_request as { html_url: string }).html_url]);
      const job = (
        await app.inject({
          method: 'GET',
          url: `/v2/agent/${seeded.project.id}/job/${run!.jobId}`,
          headers: bearer(seeded.adminKey),
        })
      ).json();
      assert.match(
        job.prompt,
        /acme\/engine #1: Add the --dry-run flag \(https:\/\/github\.com\/acme\/engine\/pull\/1\)/,
      );
      assert.match(
        job.prompt,
        /Update the docs for Add the --dry-run flag by contributor:\nLets users preview a deploy\./,
      );

      // The open-PR cap (1): the first job is still running, so the next merge is skipped, saying why.
      const second = github.mergeNewPull('acme', 'engine', {
        title: 'Rename flags',
        body: '',
        head: 'f2',
        mergeCommitSha: sha(),
      });
      assert.equal(
        (await hook('github', await githubDelivery(HOOK_SECRET, 'pull_request', second))).statusCode,
        202,
      );
      const runs = await settled(automation.id, 2);
      assert.equal(runs[0]!.status, 'skipped');
      assert.match(runs[0]!.skipReason ?? '', /1 open pull requests or running jobs \(max 1\)/);
      assert.equal(runs[0]!.jobId, null);
    });

    test('concurrent redeliveries and retellings of one merge queue one run per automation', async () => {
      // Intake records a delivery in one statement without a transaction (intake.ts): twelve
      // deliveries of one merge at once, half the same delivery id and half new ids, must still
      // give each watching automation exactly one run, and every answer must be 2xx.
      const first = (await codeChange({}, { maxOpenPullRequests: 100 })).json();
      const second = (await codeChange({}, { maxOpenPullRequests: 100 })).json();
      const payload = github.mergeNewPull('acme', 'engine', {
        title: 'Burst\u0000 of deliveries',
        body: 'nul\u0000 inside',
        head: 'feature/burst',
        mergeCommitSha: sha(),
      });
      const delivery = await githubDelivery(HOOK_SECRET, 'pull_request', payload);
      const retellings = await Promise.all(
        Array.from({ length: 6 }, () => githubDelivery(HOOK_SECRET, 'pull_request', payload)),
      );
      const answers = await Promise.all(
        [...Array.from({ length: 6 }, () => delivery), ...retellings].map((d) => hook('github', d)),
      );
      for (const answer of answers) assert.ok([200, 202].includes(answer.statusCode), answer.body);
      const answered = answers.flatMap((answer) => answer.json().runs as string[]);
      const [firstRuns, secondRuns] = [await runsOf(first.id), await runsOf(second.id)];
      assert.equal(firstRuns.length, 1, 'one run for the first automation');
      assert.equal(secondRuns.length, 1, 'one run for the second automation');
      for (const run of [firstRuns[0]!, secondRuns[0]!]) assert.ok(answered.includes(run.id));
      const stored = await db().query<{ context: { events: { title: string; body: string }[] } }>(
        'SELECT context FROM automation_runs WHERE id = $1',
        [firstRuns[0]!.id],
      );
      assert.equal(stored[0]!.context.events[0]!.title, 'Burst of deliveries', 'NULs are dropped');
      assert.equal(stored[0]!.context.events[0]!.body, 'nul inside');
      await admin('DELETE', `/${first.id}`);
      await admin('DELETE', `/${second.id}`);
    });

    test('unknown events and unwatched changes answer 200 and queue nothing', async () => {
      const ping = await hook(
        'github',
        await githubDelivery(HOOK_SECRET, 'ping', { zen: 'Keep it logically awesome.' }),
      );
      assert.equal(ping.statusCode, 200);
      assert.match(ping.json().ignored, /ping/);
      const other = github.mergeNewPull('acme', 'engine', {
        title: 'Into a release branch',
        body: '',
        head: 'f3',
        base: 'release',
        mergeCommitSha: sha(),
      });
      const res = await hook('github', await githubDelivery(HOOK_SECRET, 'pull_request', other));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().runs, []);
      const notJson = await hook('github', {
        headers: (await githubDelivery(HOOK_SECRET, 'push', {})).headers,
        body: '{',
      });
      assert.equal(notJson.statusCode, 401, 'the signature covers the bytes: another body fails it');
    });

    test('grouping adds a follow-up to the open job; a quiet period batches merges into one run', async () => {
      const automation = (
        await codeChange({ labels: ['docs'] }, { grouping: true, quietPeriodSeconds: 60 })
      ).json();
      const merge = (title: string, labels = ['docs']) =>
        github.mergeNewPull('acme', 'engine', {
          title,
          body: '',
          head: title,
          labels,
          mergeCommitSha: sha(),
        });
      for (const title of ['One', 'Two']) {
        assert.equal(
          (await hook('github', await githubDelivery(HOOK_SECRET, 'pull_request', merge(title)))).statusCode,
          202,
        );
      }
      // Not labelled docs: not this automation's (another one, without a label filter, takes it).
      await hook('github', await githubDelivery(HOOK_SECRET, 'pull_request', merge('Unlabelled', [])));
      let runs = await settled(automation.id, 1);
      assert.equal(runs[0]!.status, 'queued', 'still in its quiet period');
      assert.equal(runs[0]!.sources.length, 2);
      advance(61_000);
      runs = await settled(automation.id, 1);
      assert.equal(runs[0]!.status, 'started');
      const jobId = runs[0]!.jobId;
      // The job ends with a pull request; the next merge becomes a follow-up on it.
      await db().query(
        "UPDATE jobs SET status = 'completed', pr_link = 'https://github.com/acme/docs/pull/9' WHERE id = $1",
        [jobId],
      );
      await hook('github', await githubDelivery(HOOK_SECRET, 'pull_request', merge('Three')));
      advance(61_000);
      runs = await settled(automation.id, 2);
      assert.equal(runs[0]!.status, 'started');
      assert.equal(runs[0]!.jobId, jobId);
      assert.equal(runs[0]!.followedUp, true);
    });
  });

  describe('code_change from GitLab and Gitea', () => {
    test('their own signatures; a wrong one is 401', async () => {
      const lab = (
        await admin('POST', '', {
          name: 'GitLab',
          trigger: { type: 'code_change', host: 'gitlab', repository: 'group/sub/engine' },
          promptTemplate: '{{event.title}}',
        })
      ).json();
      const tea = (
        await admin('POST', '', {
          name: 'Gitea',
          trigger: { type: 'code_change', host: 'gitea', repository: 'acme/engine' },
          promptTemplate: '{{event.title}}',
        })
      ).json();
      const mr = gitlabMergePayload({
        path: 'group/sub/engine',
        iid: 4,
        title: 'MR four',
        description: '',
        target: 'main',
        mergeCommitSha: sha(),
        webUrl: 'https://gitlab.example',
      });
      assert.equal((await hook('gitlab', gitlabDelivery('wrong', 'Merge Request Hook', mr))).statusCode, 401);
      assert.equal(
        (await hook('gitlab', gitlabDelivery(HOOK_SECRET, 'Merge Request Hook', mr))).statusCode,
        202,
      );
      const pr = giteaMergePayload({
        fullName: 'acme/engine',
        number: 3,
        title: 'PR three',
        body: '',
        base: 'main',
        mergeCommitSha: sha(),
        webUrl: 'https://gitea.example',
      });
      assert.equal((await hook('gitea', giteaDelivery('wrong', 'pull_request', pr))).statusCode, 401);
      assert.equal((await hook('gitea', giteaDelivery(HOOK_SECRET, 'pull_request', pr))).statusCode, 202);
      assert.equal((await settled(lab.id, 1))[0]!.status, 'started');
      assert.deepEqual((await settled(tea.id, 1))[0]!.sources, ['https://gitea.example/acme/engine/pulls/3']);
      // Each host's clone URL is kept with the event: the worker fetches the change from it.
      const cloneUrls = await db().query<{ url: string }>(
        `SELECT context->'events'->0->>'cloneUrl' AS url FROM automation_runs
          WHERE automation_id IN ($1, $2) ORDER BY created_at`,
        [lab.id, tea.id],
      );
      assert.deepEqual(
        cloneUrls.map((r) => r.url),
        ['https://gitlab.example/group/sub/engine.git', 'https://gitea.example/acme/engine.git'],
      );
    });
  });

  describe('schedule', () => {
    test('fires at its time in its time zone; a downtime over many times fires once', async () => {
      const automation = (
        await admin('POST', '', {
          name: 'Hourly',
          trigger: { type: 'schedule', cron: '0 * * * *', timezone: 'Asia/Kolkata' },
          promptTemplate: 'Scheduled for {{event.scheduledFor}}',
          limits: { maxOpenPullRequests: 100 },
        })
      ).json();
      // Kolkata is UTC+5:30: its full hours fall at half past in UTC.
      const first = new Date(automation.nextRunAt);
      assert.equal(first.getUTCMinutes(), 30);
      assert.ok(first.getTime() > Date.now() && first.getTime() <= Date.now() + 3_600_000);
      moveTo(new Date(first.getTime() - 30_000));
      assert.deepEqual(await worker.fireDueSchedules(), []);
      moveTo(first);
      const [run] = await settled(automation.id, 1);
      assert.equal(run!.status, 'started');
      // Down for five hours: one run, not five, and the next time is after now.
      moveTo(new Date(first.getTime() + 5 * 3_600_000 + 15 * 60_000));
      const runs = await settled(automation.id, 2);
      assert.equal(runs[0]!.status, 'started');
      const next = (await admin('GET', `/${automation.id}`)).json().nextRunAt;
      assert.equal(next, new Date(first.getTime() + 6 * 3_600_000).toISOString());
      assert.deepEqual(await worker.fireDueSchedules(), []);
    });

    test('the daily run cap skips the runs beyond it, saying why', async () => {
      const automation = (
        await admin('POST', '', {
          name: 'Every minute',
          trigger: { type: 'schedule', cron: '* * * * *' },
          promptTemplate: 'tick',
          limits: { dailyRunCap: 1, maxOpenPullRequests: 100 },
        })
      ).json();
      // Early in a later UTC day, so both runs fall on the same day.
      const day = now();
      moveTo(new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 2, 1)));
      await settled(automation.id, 1);
      advance(60_000);
      const runs = await settled(automation.id, 2);
      assert.equal(runs[0]!.status, 'skipped');
      assert.match(runs[0]!.skipReason ?? '', /daily run cap reached/);
    });
  });
});
