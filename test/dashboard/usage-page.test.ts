// The dashboard's usage page over seeded model calls: the month's spend against the budget with
// the alert the month set off, the chart's data and the table with the same numbers (every day of
// the range, empty days as zero), the spend per model, and a bad range named.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { createSetupToken } from '../../src/modules/accounts/users.ts';
import { updateProject } from '../../src/modules/projects/service.ts';
import { seedProject, TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { createDashboardApp, InjectBrowser } from './helpers.ts';

const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

await forEachBackend('dashboard usage page', ({ db }) => {
  let app: App;
  let owner: InjectBrowser;
  let projectId: string;
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

  before(async () => {
    ({ app } = await createDashboardApp(db()));
    owner = new InjectBrowser(app);
    await owner.get('/app/setup');
    const code = await createSetupToken(db());
    await owner.post('/app/setup', { token: code!, ...OWNER, confirm: OWNER.password });
    const { project } = await seedProject(db());
    projectId = project.id;
    await updateProject(db(), projectId, { settings: { monthlyBudgetUsd: 10 } }, TEST_REPOSITORIES);
    await db().query(
      `INSERT INTO jobs (id, project_id, status, prompt, source_repository, source_ref, model)
       VALUES ('job_dash1', $1, 'completed', 'p', 'https://github.com/example/docs', 'main', 'x:y')`,
      [projectId],
    );
    for (const [model, cost] of [
      ['anthropic:claude-sonnet-4-5', 8.25],
      ['openai-compatible:llama3', null],
    ] as const) {
      await db().query(
        `INSERT INTO model_calls (project_id, job_id, prompt_seq, model, input_tokens, output_tokens,
                                  cache_read_tokens, cache_write_tokens, cost_usd)
         VALUES ($1, 'job_dash1', 1, $2, 1000, 100, 400, 0, $3)`,
        [projectId, model, cost],
      );
    }
    await db().query(
      `INSERT INTO budget_alerts (project_id, month, threshold, job_id, spent_usd, budget_usd)
       VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 80, 'job_dash1', 8.25, 10)`,
      [projectId],
    );
  });
  after(() => app.close());

  test('the month against the budget, the alert, spend per day and per model', async () => {
    const res = await owner.get(`/app/projects/${projectId}/usage?from=${yesterday}&to=${today}`);
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, /<a[^>]*href="\/app\/projects\/[^"]+\/usage"[^>]*aria-current="page"/);
    assert.match(res.body, /id="month-spent">\$8\.25</);
    assert.match(res.body, /83 % of the budget/);
    assert.match(res.body, /id="month-budget">\$10\.00</);
    assert.match(res.body, /id="budget-alert">80 % of the monthly budget of \$10\.00 is spent\./);
    const data = JSON.parse(/<script[^>]*id="spend-data"[^>]*>([^<]*)<\/script>/.exec(res.body)![1]!);
    assert.deepEqual(data.days, [
      { day: yesterday, costUsd: 0, calls: 0 },
      { day: today, costUsd: 8.25, calls: 2 },
    ]);
    assert.match(
      res.body,
      new RegExp(`<td>${today}</td><td class="num">2</td><td class="num">\\$8\\.25</td>`),
    );
    assert.match(
      res.body,
      /<td>openai-compatible:llama3<\/td>(<td class="num">[^<]*<\/td>){5}<td class="num">no price<\/td>/,
    );
    assert.match(res.body, /for 2 model calls .*; 1 call of models without a price is not in it/);
  });

  test('a bad range is named and the page still answers', async () => {
    const res = await owner.get(`/app/projects/${projectId}/usage?from=2026-02-30&to=2026-03-01`);
    assert.equal(res.status, 200);
    assert.match(res.body, /class="[^"]*error/);
  });
});
