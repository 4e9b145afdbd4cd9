// Budget alerts through the real parts: a job worker whose runner reports model calls the way the
// agent does (chargeModelCall), the usage module pricing them against the project's monthly
// budget, the job_events trigger, and the webhook dispatcher posting signed budget.warning and
// budget.exhausted to a local receiver. Each must arrive once per month and threshold, even when
// several jobs cross it at the same time.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { createJob } from '../../src/modules/jobs/service.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { updateProject } from '../../src/modules/projects/service.ts';
import { PriceTable } from '../../src/modules/usage/index.ts';
import { WebhookDispatcher } from '../../src/modules/webhooks/dispatcher.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject, TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../stand-ins/webhook-receiver.ts';

const SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const SERVER_KEY = randomBytes(32);
const serviceConfig = { jobRateLimitPerHour: 10_000, defaultModel: 'openai:gpt-alert' };
// $1 per million input tokens: a call of 100,000 input tokens costs $0.10.
const PRICES = new PriceTable([
  [{ provider: 'openai', model: 'gpt-alert', inputPerMillion: 1, outputPerMillion: 0 }],
]);

async function waitFor<T>(what: string, probe: () => T | false | Promise<T | false>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

await forEachBackend('budget alerts', ({ db }) => {
  let receiver: WebhookReceiver;
  let worker: JobWorker;
  let dispatcher: WebhookDispatcher;
  // How many calls of 100,000 input tokens each job's run makes, by prompt.
  const callsByPrompt = new Map<string, number>();

  before(async () => {
    receiver = await startWebhookReceiver();
    worker = new JobWorker({
      db: db(),
      logger: createLogger('silent'),
      concurrency: 4,
      leaseMs: 5000,
      maxAttempts: 1,
      pollIntervalMs: 60_000,
      prices: PRICES,
      runner: async (input) => {
        let costUsd = 0;
        const calls = callsByPrompt.get(input.prompts.at(-1)!) ?? 0;
        for (let i = 0; i < calls; i++) {
          const charge = await input.chargeModelCall!({
            model: input.job.model,
            inputTokens: 100_000,
            outputTokens: 0,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
          });
          costUsd += charge.costUsd ?? 0;
          if (charge.stop) break;
        }
        return {
          status: 'completed',
          prLink: null,
          branch: null,
          summary: null,
          stopReason: 'finish',
          usage: { inputTokens: 100_000 * calls, outputTokens: 0, steps: calls, costUsd },
        };
      },
    });
    await worker.start();
    dispatcher = new WebhookDispatcher({
      db: db(),
      serverKey: SERVER_KEY,
      logger: createLogger('silent'),
      allowPrivateAddresses: true,
      timeoutMs: 2000,
      retryDelaysMs: [20, 20, 20],
      pollIntervalMs: 100,
    });
    await dispatcher.start();
  });
  after(async () => {
    await worker.stop(0);
    await dispatcher.stop();
    await receiver.close();
  });

  test('80 % and 100 % of the month each send one signed webhook, however many jobs cross them', {
    timeout: 60_000,
  }, async () => {
    const { project } = await seedProject(db());
    await updateProject(
      db(),
      project.id,
      { settings: { webhookUrl: `${receiver.origin}/budget`, monthlyBudgetUsd: 1 } },
      TEST_REPOSITORIES,
    );
    await setProjectSecret(db(), SERVER_KEY, project.id, 'webhookSecret', SECRET);
    const run = async (prompt: string, calls: number) => {
      callsByPrompt.set(prompt, calls);
      const { job } = await createJob(db() as Database, serviceConfig, {
        projectId: project.id,
        prompt,
        idempotencyKey: null,
      });
      worker.nudge();
      return job.id;
    };
    const settled = (id: string) =>
      waitFor(`job ${id} to end`, async () => {
        const rows = await db().query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [id]);
        return rows[0]?.status !== 'active';
      });

    // $0.70 first: below 80 %, no alert.
    await settled(await run('seventy cents', 7));
    // Three jobs at once, $0.10 each: the month reaches $1.00, crossing 80 % and 100 % once.
    await Promise.all(
      await Promise.all(['a', 'b', 'c'].map(async (name) => settled(await run(`ten cents ${name}`, 1)))),
    );
    const budgetHooks = () =>
      receiver.received.filter((r) => r.path === '/budget' && JSON.parse(r.body).type.startsWith('budget.'));
    await waitFor('two budget webhooks', () => budgetHooks().length >= 2);
    // Later spend in the month sends nothing new (a 0-budget check refuses new jobs, so raise it).
    await updateProject(db(), project.id, { settings: { monthlyBudgetUsd: 1.05 } }, TEST_REPOSITORIES);
    await settled(await run('one more', 1));
    await new Promise((r) => setTimeout(r, 500));

    const hooks = budgetHooks().map((r) => ({ ...r, json: JSON.parse(r.body) }));
    assert.deepEqual(hooks.map((h) => h.json.type).sort(), ['budget.exhausted', 'budget.warning']);
    const month = new Date().toISOString().slice(0, 7);
    for (const hook of hooks) {
      assert.equal(hook.json.projectId, project.id);
      assert.equal(hook.json.budget.month, month);
      assert.equal(hook.json.budget.budgetUsd, 1);
      assert.equal(hook.json.budget.threshold, hook.json.type === 'budget.warning' ? 80 : 100);
      assert.ok(hook.json.budget.spentUsd >= hook.json.budget.threshold / 100);
      assert.ok(hook.json.job.id.startsWith('job_'));
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hook.headers['docwright-signature']))!;
      assert.equal(v1, createHmac('sha256', SECRET).update(`${t}.${hook.body}`).digest('hex'));
    }
    const alerts = await db().query('SELECT threshold FROM budget_alerts WHERE project_id = $1', [
      project.id,
    ]);
    assert.equal(alerts.length, 2);

    // And the month is spent again at $1.10 ≥ $1.05: the next job is refused.
    await assert.rejects(
      createJob(db() as Database, serviceConfig, {
        projectId: project.id,
        prompt: 'refused',
        idempotencyKey: null,
      }),
      (error: { code?: string; statusCode?: number }) => error.code === 'budget_exhausted',
    );
  });
});
