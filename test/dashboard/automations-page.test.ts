// The dashboard's automations page: each automation with its trigger, whether it is enabled and
// its latest runs (status, skip reason, a link to the job it started); the owner enables and
// disables an automation there, a member only reads (the form is absent and a forged post 403s).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { createSetupToken } from '../../src/modules/accounts/users.ts';
import { createAutomation, getAutomation } from '../../src/modules/automations/index.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { createDashboardApp, InjectBrowser, PUBLIC_URL } from './helpers.ts';

const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

await forEachBackend('dashboard automations page', ({ db }) => {
  let app: App;
  let owner: InjectBrowser;
  let member: InjectBrowser;
  let projectId: string;
  let engineId: string;
  let nightlyId: string;

  before(async () => {
    ({ app } = await createDashboardApp(db()));
    owner = new InjectBrowser(app);
    await owner.get('/app/setup');
    const code = await createSetupToken(db());
    await owner.post('/app/setup', { token: code!, ...OWNER, confirm: OWNER.password });
    const { project } = await seedProject(db());
    projectId = project.id;
    const engine = await createAutomation(db(), {
      projectId,
      publicUrl: PUBLIC_URL,
      body: {
        name: 'Docs follow the engine',
        trigger: { type: 'code_change', host: 'github', repository: 'acme/engine', paths: ['src/'] },
        promptTemplate: 'The engine changed: {{event.title}}',
      },
    });
    engineId = engine.id;
    const nightly = await createAutomation(db(), {
      projectId,
      publicUrl: PUBLIC_URL,
      body: {
        name: 'Nightly check',
        enabled: false,
        trigger: { type: 'schedule', cron: '0 3 * * *', timezone: 'Europe/Berlin' },
        promptTemplate: 'Check the docs.',
      },
    });
    nightlyId = nightly.id;
    await db().query(
      `INSERT INTO jobs (id, project_id, status, prompt, source_repository, source_ref, model)
       VALUES ('job_auto1', $1, 'completed', 'p', 'https://github.com/example/docs', 'main', 'x:y')`,
      [projectId],
    );
    const run = (
      id: string,
      status: string,
      jobId: string | null,
      reason: string | null,
      minutesAgo: number,
    ) =>
      db().query(
        `INSERT INTO automation_runs (id, automation_id, project_id, trigger_type, status, context, job_id,
                                      skip_reason, due_at, created_at)
         VALUES ($1, $2, $3, 'code_change', $4, '{"events": []}', $5, $6, now(), now() - make_interval(mins => $7))`,
        [id, engineId, projectId, status, jobId, reason, minutesAgo],
      );
    await run('run_started1', 'started', 'job_auto1', null, 10);
    await run(
      'run_skipped1',
      'skipped',
      null,
      'the code repository acme/engine could not be read at 0123456789ab: not found <b>',
      5,
    );

    // A member, invited by the owner.
    await owner.get('/app/team');
    const invited = await owner.post('/app/team/invitations', { email: 'writer@example.com' });
    const link = /app\/invite#code=([A-Za-z0-9_-]{43})/.exec(invited.body)!;
    member = new InjectBrowser(app);
    await member.get('/app/invite');
    await member.post('/app/invite', {
      token: link[1]!,
      password: 'writer password 1',
      confirm: 'writer password 1',
    });
  });
  after(() => app.close());

  const url = () => `/app/projects/${projectId}/automations`;

  test('automations with their trigger, state and latest runs', async () => {
    const res = await owner.get(url());
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, /<a[^>]*href="\/app\/projects\/[^"]+\/automations"[^>]*aria-current="page"/);
    assert.match(
      res.body,
      /Docs follow the engine <span class="badge badge-ok">enabled<\/span>[\s\S]*Merged pull request into main of acme\/engine on github \(paths src\/\)/,
    );
    assert.match(
      res.body,
      /Nightly check <span class="badge badge-muted">disabled<\/span>[\s\S]*Schedule 0 3 \* \* \* \(Europe\/Berlin\)/,
    );
    // Newest run first; the started one links its job; the skip reason is shown, escaped.
    const skipped = res.body.indexOf('data-run-id="run_skipped1"');
    const started = res.body.indexOf('data-run-id="run_started1"');
    assert.ok(skipped > 0 && started > skipped, 'newest run first');
    assert.match(res.body, new RegExp(`href="/app/projects/${projectId}/jobs/job_auto1">job_auto1</a>`));
    assert.match(res.body, /could not be read at 0123456789ab: not found &lt;b&gt;/);
    assert.match(res.body, /No runs yet\./, 'the schedule has no runs');
  });

  test('the owner disables and enables an automation', async () => {
    const page = await owner.get(url());
    assert.match(
      page.body,
      new RegExp(`action="/app/projects/${projectId}/automations/${engineId}/enabled"`),
    );
    const disabled = await owner.post(`${url()}/${engineId}/enabled`, { enabled: 'false' });
    assert.equal(disabled.status, 303, disabled.body.slice(0, 300));
    assert.equal(disabled.location, `${url()}?notice=automation-disabled`);
    assert.equal((await getAutomation(db(), projectId, engineId, PUBLIC_URL)).enabled, false);
    const after = await owner.get(disabled.location!);
    assert.match(after.body, /Automation disabled/);
    assert.match(after.body, /Docs follow the engine <span class="badge badge-muted">disabled/);
    await owner.post(`${url()}/${nightlyId}/enabled`, { enabled: 'true' });
    const nightly = await getAutomation(db(), projectId, nightlyId, PUBLIC_URL);
    assert.equal(nightly.enabled, true);
    assert.ok(nightly.nextRunAt, 'an enabled schedule gets its next time');
  });

  test('a member reads but cannot enable or disable', async () => {
    const page = await member.get(url());
    assert.equal(page.status, 200);
    assert.match(page.body, /Docs follow the engine/);
    assert.doesNotMatch(page.body, /\/enabled"/, 'no toggle form for a member');
    assert.match(page.body, /Only the owner can enable or disable them/);
    const before = (await getAutomation(db(), projectId, engineId, PUBLIC_URL)).enabled;
    const refused = await member.post(`${url()}/${engineId}/enabled`, { enabled: String(!before) });
    assert.equal(refused.status, 403);
    assert.equal((await getAutomation(db(), projectId, engineId, PUBLIC_URL)).enabled, before);
  });

  test('an unknown automation is a 404; a post without the CSRF token changes nothing', async () => {
    await owner.get(url());
    const unknown = await owner.post(`${url()}/aut_nope/enabled`, { enabled: 'true' });
    assert.equal(unknown.status, 404);
    const before = (await getAutomation(db(), projectId, engineId, PUBLIC_URL)).enabled;
    const forged = await owner.post(`${url()}/${engineId}/enabled`, {
      _csrf: null,
      enabled: String(!before),
    });
    assert.equal(forged.status, 403);
    assert.equal((await getAutomation(db(), projectId, engineId, PUBLIC_URL)).enabled, before);
  });
});
