// End to end (GitHub, Prism-checked), what jobs cost: the scripted model reports prompt-cache
// tokens in OpenAI's wire format, the real runner and worker price every call, and the job, its
// step events and the usage export must agree with a hand computation; a follow-up adds up in
// usage.total; a job crossing its cost cap publishes its work and fails naming the cap; a spent
// monthly budget refuses the next job with 402 budget_exhausted.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, startAgentHarness } from './agent-harness.ts';
import { GUIDE_EDIT } from './scripts.ts';

/** USD per million tokens for the harness's model, set as the project's own price. */
const PRICE = {
  provider: 'openai',
  model: 'gpt-e2e',
  inputPerMillion: 2,
  cacheReadPerMillion: 0.5,
  outputPerMillion: 8,
};

// Per step: total input (cache included), output, cache reads. By hand:
//   1: (10000-0)×2 + 0×0.5 + 200×8       = 20000 + 1600        = 21600 µ$ → 0.0216
//   2: (12000-8000)×2 + 8000×0.5 + 100×8 = 8000 + 4000 + 800   = 12800 µ$ → 0.0128
//   3: (13000-12000)×2 + 12000×0.5 + 50×8 = 2000 + 6000 + 400  = 8400 µ$  → 0.0084
//   4: (14000-12000)×2 + 12000×0.5 + 40×8 = 4000 + 6000 + 320  = 10320 µ$ → 0.01032
const USAGE = [
  { inputTokens: 10_000, outputTokens: 200, cacheReadTokens: 0 },
  { inputTokens: 12_000, outputTokens: 100, cacheReadTokens: 8_000 },
  { inputTokens: 13_000, outputTokens: 50, cacheReadTokens: 12_000 },
  { inputTokens: 14_000, outputTokens: 40, cacheReadTokens: 12_000 },
];
const COSTS = [0.0216, 0.0128, 0.0084, 0.01032];
const RUN_COST = 0.05312;

type Usage = {
  inputTokens: number;
  outputTokens: number;
  steps: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
  total: { costUsd: number | null; steps: number; inputTokens: number; cacheReadTokens: number };
};

await forEachBackend('what agent jobs cost, end to end (GitHub)', ({ db }) => {
  let h: AgentHarness;
  const auth = () => ({ authorization: `Bearer ${h.adminKey}` });
  const usageExport = async (query: string, accept = 'application/json') => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/v2/agent/${h.project.id}/usage${query}`,
      headers: { ...auth(), accept },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res;
  };

  before(async () => {
    h = await startAgentHarness(db());
  });
  afterEach(async () => {
    h.intercept = null;
    await h.setSettings({ modelPrices: null, jobCostCapUsd: null, monthlyBudgetUsd: null });
    await db().query('DELETE FROM model_calls');
    await db().query('DELETE FROM budget_alerts');
  });
  after(() => h.close());

  test('each call is priced with its cache tokens; the job, its events and the export agree', {
    timeout: 60_000,
  }, async () => {
    await h.setSettings({ modelPrices: [PRICE] });
    h.llm.enqueue(
      reply.toolCall('list_files', { pattern: 'docs/**' }, { usage: USAGE[0]! }),
      reply.toolCall('read_file', { path: 'docs/guide.md' }, { usage: USAGE[1]! }),
      reply.toolCall('edit_file', GUIDE_EDIT, { usage: USAGE[2]! }),
      reply.toolCall('finish', { title: 'Document --yes', summary: 'Done.' }, { usage: USAGE[3]! }),
    );
    const created = await h.createJob('Document the --yes flag, priced');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const usage = job.usage as unknown as Usage;
    assert.equal(usage.steps, 4);
    assert.equal(usage.cacheReadTokens, 32_000);
    assert.equal(usage.cacheWriteTokens, 0);
    assert.equal(usage.costUsd, RUN_COST);
    assert.equal(usage.total.costUsd, RUN_COST);

    const steps = (await h.events(created.id)).filter((e) => e.type === 'step');
    assert.deepEqual(
      steps.map((e) => e.data.costUsd),
      COSTS,
    );
    assert.deepEqual(
      steps.map((e) => (e.data.usage as { cacheReadTokens: number }).cacheReadTokens),
      USAGE.map((u) => u.cacheReadTokens),
    );

    // A follow-up: its own run, and the job's total over both.
    h.llm.enqueue(
      reply.toolCall('read_file', { path: 'docs/guide.md' }, { usage: USAGE[0]! }),
      reply.toolCall('finish', { title: 'Checked', summary: 'Nothing more.' }, { usage: USAGE[1]! }),
    );
    const follow = await h.app.inject({
      method: 'POST',
      url: `/v2/agent/${h.project.id}/job/${created.id}/message`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: { prompt: 'Check it once more' },
    });
    assert.equal(follow.statusCode, 200, follow.body);
    const again = await h.waitForJob(created.id, (j) => j.status !== 'active' && j.usage?.steps === 2);
    const second = again.usage as unknown as Usage;
    assert.equal(second.costUsd, COSTS[0]! + COSTS[1]!);
    assert.equal(second.total.steps, 6);
    assert.equal(second.total.costUsd, Math.round((RUN_COST + COSTS[0]! + COSTS[1]!) * 1e10) / 1e10);

    // The export sums to the job's total, whichever way it is grouped.
    for (const groupBy of ['day', 'model', 'job']) {
      const report = (await usageExport(`?groupBy=${groupBy}`)).json();
      assert.equal(report.totals.costUsd, second.total.costUsd, groupBy);
      assert.equal(report.totals.calls, 6);
      assert.equal(report.totals.inputTokens, second.total.inputTokens);
      assert.equal(report.totals.cacheReadTokens, second.total.cacheReadTokens);
      assert.equal(report.totals.unpricedCalls, 0);
      assert.equal(report.rows.length, 1);
    }
    const byJob = (await usageExport('?groupBy=job')).json();
    assert.equal(byJob.rows[0].key, created.id);
    const csv = (await usageExport('?groupBy=model', 'text/csv')).body;
    assert.equal(
      csv,
      `model,calls,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,costUsd,unpricedCalls\r\nopenai:gpt-e2e,6,71000,690,40000,0,${second.total.costUsd},0\r\n`,
    );
    // A range that holds nothing.
    const empty = (await usageExport('?dateFrom=2001-01-01&dateTo=2001-02-01')).json();
    assert.equal(empty.totals.calls, 0);
  });

  test('a model without a price: costUsd null, said so; the export counts its calls apart', {
    timeout: 60_000,
  }, async () => {
    h.llm.enqueue(reply.toolCall('finish', { title: 'Nothing', summary: 'Nothing to do.' }));
    const created = await h.createJob('Unpriced run');
    const job = await h.waitForJob(created.id);
    const usage = job.usage as unknown as Usage & { costNote: string };
    assert.equal(usage.costUsd, null);
    assert.match(usage.costNote, /No price is known for the model openai:gpt-e2e/);
    const report = (await usageExport('')).json();
    assert.equal(report.totals.unpricedCalls, 1);
    assert.equal(report.totals.costUsd, 0);
  });

  test('a job crossing its cost cap stops at the next step, keeps its work, and fails naming the cap', {
    timeout: 60_000,
  }, async () => {
    // The cap is passed by the third call (0.0216 + 0.0128 + 0.0084 = 0.0428 ≥ 0.04).
    await h.setSettings({ modelPrices: [PRICE], jobCostCapUsd: 0.04 });
    const before = h.llm.requests.length;
    h.llm.enqueue(
      reply.toolCall('list_files', { pattern: 'docs/**' }, { usage: USAGE[0]! }),
      reply.toolCall('read_file', { path: 'docs/guide.md' }, { usage: USAGE[1]! }),
      // No fourth answer: a fourth request would get the server's error, and the count below.
      reply.toolCall('edit_file', GUIDE_EDIT, { usage: USAGE[2]! }),
    );
    const created = await h.createJob('Document the --yes flag, capped');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'limit_reached');
    assert.match(job.error?.message ?? '', /cost_cap \(jobCostCapUsd\)/);
    assert.match(job.error?.message ?? '', /\$0\.04\b/);
    assert.equal(h.llm.requests.length - before, 3, 'no step after the one that crossed the cap');
    assert.ok(job.prLink, 'the work is published');
    assert.match(job.error?.message ?? '', new RegExp(job.prLink!.replace(/[.?*+^$()[\]{}|\\/]/g, '\\$&')));
    assert.match((await h.fileOnBranch(job.branch!, GUIDE_EDIT.path)) ?? '', /--yes/);
    assert.equal((await h.jobRow(created.id)).stop_reason, 'cost_cap');
    assert.equal((job.usage as unknown as Usage).costUsd, 0.0428);

    // A follow-up on a job that spent its cap is refused.
    const follow = await h.app.inject({
      method: 'POST',
      url: `/v2/agent/${h.project.id}/job/${created.id}/message`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: { prompt: 'Go on' },
    });
    assert.equal(follow.statusCode, 402, follow.body);
    assert.equal(follow.json().code, 'budget_exhausted');
    assert.match(follow.json().error, /jobCostCapUsd/);
  });

  test('a spent monthly budget refuses a new job with 402 budget_exhausted', {
    timeout: 60_000,
  }, async () => {
    await h.setSettings({ modelPrices: [PRICE], monthlyBudgetUsd: 0.03 });
    h.llm.enqueue(
      reply.toolCall('list_files', { pattern: 'docs/**' }, { usage: USAGE[0]! }),
      reply.toolCall('read_file', { path: 'docs/guide.md' }, { usage: USAGE[1]! }),
    );
    const created = await h.createJob('Spend the month');
    const job = await h.waitForJob(created.id);
    assert.equal(job.error?.code, 'limit_reached');
    assert.match(job.error?.message ?? '', /monthly_budget \(monthlyBudgetUsd\)/);

    const refused = await h.app.inject({
      method: 'POST',
      url: `/v2/agent/${h.project.id}/job`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: { prompt: 'One more' },
    });
    assert.equal(refused.statusCode, 402, refused.body);
    const body = refused.json();
    assert.equal(body.code, 'budget_exhausted');
    assert.match(body.error, /monthlyBudgetUsd \$0\.03/);
    assert.match(body.error, /\$0\.03 this month/);
    const report = (await usageExport('')).json();
    assert.equal(report.budget.monthlyBudgetUsd, 0.03);
    assert.equal(report.budget.spentUsd, 0.0344);
  });
});
