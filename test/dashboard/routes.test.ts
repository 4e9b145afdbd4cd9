// The dashboard's routes over HTTP (inject), on both backends: redirects without a session,
// setup, sign-in (wrong password, throttling), cookies, CSRF, settings and write-only secrets,
// keys that work and stop working on the API, jobs from the prompt box, invitations, headers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { createSetupToken } from '../../src/modules/accounts/users.ts';
import { listProjectSecrets, readProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createProject, getProject } from '../../src/modules/projects/service.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { createDashboardApp, InjectBrowser } from './helpers.ts';

const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

const cookieLine = (headers: Record<string, unknown>, name: string) =>
  ([headers['set-cookie']].flat() as string[]).find((c) => c?.startsWith(`${name}=`));

await forEachBackend('dashboard routes', ({ db }) => {
  let app: App;
  let secretKey: Buffer;
  let owner: InjectBrowser;
  let projectId: string;
  let member: InjectBrowser;

  before(async () => {
    ({ app, secretKey } = await createDashboardApp(db()));
  });
  after(() => app.close());

  test('without accounts every page leads to setup; a wrong setup code is refused and creates nothing', async () => {
    const b = new InjectBrowser(app);
    assert.equal((await b.get('/')).location, '/app');
    assert.equal((await b.get('/app')).location, '/app/setup');
    assert.equal((await b.get('/app/projects')).location, '/app/setup');
    const page = await b.get('/app/setup');
    assert.equal(page.status, 200);
    assert.match(page.body, /<label for="setup-code">Setup code/);
    const refused = await b.post('/app/setup', { token: 'x'.repeat(43), ...OWNER, confirm: OWNER.password });
    assert.equal(refused.status, 400);
    assert.match(refused.body, /setup code is unknown, used or expired/);
    assert.equal(cookieLine(refused.headers, 'dw_session'), undefined);
    assert.equal((await db().query('SELECT 1 FROM users')).length, 0);
  });

  test('setup with the printed code creates the owner and signs in with an HttpOnly, SameSite session cookie', async () => {
    owner = new InjectBrowser(app);
    await owner.get('/app/setup');
    const code = await createSetupToken(db());
    const done = await owner.post('/app/setup', { token: code!, ...OWNER, confirm: OWNER.password });
    assert.equal(done.status, 303);
    assert.equal(done.location, '/app/projects?notice=welcome');
    const cookie = cookieLine(done.headers, 'dw_session')!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/, 'plain http here');
    const projects = await owner.get(done.location!);
    assert.equal(projects.status, 200);
    assert.match(projects.body, /Your owner account is ready/);
    assert.match(projects.body, /owner@example\.com/);
    // Setup is over: the page says so, and another attempt is refused.
    const again = await new InjectBrowser(app).get('/app/setup');
    assert.match(again.body, /An owner account exists already/);
  });

  test('pages answer with no-store, a strict content security policy and no framing', async () => {
    const page = await owner.get('/app/projects');
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(String(page.headers['content-security-policy']), /script-src 'self';/);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
  });

  test('sign-in: a wrong password is refused without a session; the right one signs in; next stays on this site', async () => {
    const b = new InjectBrowser(app);
    assert.match((await b.get('/app/projects')).location ?? '', /^\/app\/sign-in\?next=%2Fapp%2Fprojects$/);
    await b.get('/app/sign-in');
    const wrong = await b.post('/app/sign-in', { email: OWNER.email, password: 'not the password' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /The email address or the password is wrong/);
    assert.equal(cookieLine(wrong.headers, 'dw_session'), undefined);
    assert.equal((await b.get('/app/projects')).status, 302);

    const right = await b.post('/app/sign-in', { ...OWNER, next: 'https://evil.example/' });
    assert.equal(right.status, 303);
    assert.equal(right.location, '/app/projects');
    assert.equal((await b.get('/app/projects')).status, 200);

    // Sign out ends the session on the server: the old cookie no longer works.
    const sessionCookie = b.cookies.get('dw_session')!;
    const out = await b.post('/app/sign-out', {});
    assert.equal(out.location, '/app/sign-in?notice=signed-out');
    const replay = await app.inject({
      url: '/app/projects',
      headers: { cookie: `dw_session=${sessionCookie}` },
    });
    assert.equal(replay.statusCode, 302);
  });

  test('sign-in is throttled after repeated failures, with Retry-After, even for the right password', async () => {
    const b = new InjectBrowser(app);
    await b.get('/app/sign-in');
    const email = 'throttle@example.com';
    for (let i = 0; i < 5; i++)
      assert.equal((await b.post('/app/sign-in', { email, password: `wrong ${i}` })).status, 401);
    const throttled = await b.post('/app/sign-in', { email, password: 'whatever at all' });
    assert.equal(throttled.status, 429);
    assert.match(throttled.body, /Too many failed sign-ins/);
    assert.ok(Number(throttled.headers['retry-after']) > 0);
  });

  test('changes without the CSRF token, with another session’s token or from another origin are refused', async () => {
    const before = (await db().query('SELECT 1 FROM projects')).length;
    const fields = { name: 'Forged', repositoryUrl: 'https://github.com/acme/forged' };
    const missing = await owner.post('/app/projects', { ...fields, _csrf: null });
    assert.equal(missing.status, 403);
    assert.match(missing.body, /This form has expired or did not come from this dashboard/);
    const other = new InjectBrowser(app);
    await other.get('/app/sign-in');
    const foreign = await owner.post('/app/projects', { ...fields, _csrf: other.csrf });
    assert.equal(foreign.status, 403);
    await owner.get('/app/projects');
    const crossSite = await owner.post('/app/projects', fields, { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403);
    assert.match(crossSite.body, /came from another site/);
    // A sign-in form posted without the pre-session cookie's token is refused too.
    const anonymous = await new InjectBrowser(app).post('/app/sign-in', { ...OWNER, _csrf: null });
    assert.equal(anonymous.status, 403);
    const json = await app.inject({ method: 'POST', url: '/app/sign-out' });
    assert.equal(json.statusCode, 403);
    assert.equal((await db().query('SELECT 1 FROM projects')).length, before, 'nothing was created');
  });

  test('projects: a bad field comes back named; a good one creates the project', async () => {
    await owner.get('/app/projects');
    const bad = await owner.post('/app/projects', { name: '', repositoryUrl: 'ftp://x', codeHostKind: '' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /id="name-error"/);
    assert.match(bad.body, /id="repositoryUrl-error"/);
    const ok = await owner.post('/app/projects', {
      name: 'Acme docs',
      repositoryUrl: 'https://github.com/acme/docs',
      ref: '',
    });
    assert.equal(ok.status, 303);
    projectId = /\/app\/projects\/(prj_[0-9A-Za-z]+)\/settings/.exec(ok.location!)![1]!;
    const project = await getProject(db(), projectId);
    assert.equal(project.codeHost.kind, 'github');
    assert.equal(project.ref, 'main');
    assert.match((await owner.get('/app/projects')).body, /Acme docs/);
  });

  test('settings: saved through the service; an invalid value is refused and changes nothing', async () => {
    const url = `/app/projects/${projectId}/settings`;
    const page = await owner.get(url);
    assert.equal(page.status, 200);
    const fields = {
      name: 'Acme documentation',
      repositoryUrl: 'https://github.com/acme/docs',
      ref: 'main',
      codeHostKind: 'github',
      codeHostBaseUrl: '',
      model: 'anthropic:claude-sonnet-4-5',
      draftPullRequests: 'on',
      deniedPaths: 'legal/**\n\n  private/*.md ',
      maxSteps: '25',
      maxTotalTokens: '',
      wallTimeSeconds: '600',
      allowedOrigins: 'https://docs.acme.dev',
      webhookUrl: '',
      githubAppId: '',
      githubAppInstallationId: '',
    };
    const saved = await owner.post(url, fields);
    assert.equal(saved.status, 303, saved.body.slice(0, 500));
    let project = await getProject(db(), projectId);
    assert.equal(project.name, 'Acme documentation');
    assert.equal(project.model, 'anthropic:claude-sonnet-4-5');
    assert.deepEqual(project.settings, {
      draftPullRequests: true,
      deniedPaths: ['legal/**', 'private/*.md'],
      maxSteps: 25,
      wallTimeSeconds: 600,
      allowedOrigins: ['https://docs.acme.dev'],
    });
    await owner.get(url);
    const refused = await owner.post(url, { ...fields, maxSteps: '0', name: 'Renamed' });
    assert.equal(refused.status, 400);
    assert.match(refused.body, /id="maxSteps-error"/);
    assert.match(refused.body, /value="Renamed"/, 'the form comes back as sent');
    project = await getProject(db(), projectId);
    assert.equal(project.name, 'Acme documentation');
    assert.equal(project.settings.maxSteps, 25);
    // Clearing a field returns it to the server default.
    await owner.get(url);
    await owner.post(url, { ...fields, maxSteps: '', draftPullRequests: null });
    project = await getProject(db(), projectId);
    assert.equal(project.settings.maxSteps, undefined);
    assert.equal(project.settings.draftPullRequests, false);
  });

  test('secrets are write-only: stored sealed, shown as set, never sent back; empty keeps, remove removes', async () => {
    const url = `/app/projects/${projectId}/settings`;
    const token = 'ghp_dashboardSecretToken1234567890abcd';
    const modelKey = 'sk-ant-dashboard-secret-model-key-123456';
    await owner.get(url);
    const saved = await owner.post(`/app/projects/${projectId}/secrets`, {
      codeHostToken: token,
      modelApiKey: modelKey,
      webhookSecret: '',
    });
    assert.equal(saved.status, 303);
    assert.equal(await readProjectSecret(db(), secretKey, projectId, 'codeHostToken'), token);
    assert.equal(await readProjectSecret(db(), secretKey, projectId, 'modelApiKey'), modelKey);
    assert.deepEqual((await listProjectSecrets(db(), projectId)).map((s) => s.name).sort(), [
      'codeHostToken',
      'modelApiKey',
    ]);
    const page = await owner.get(url);
    assert.ok(!page.body.includes(token) && !page.body.includes(modelKey), 'no secret in the page');
    assert.match(page.body, /id="secret-codeHostToken-status">Set</);
    assert.match(page.body, /id="secret-webhookSecret-status">Not set</);
    // An empty field keeps the stored value; the remove box removes it.
    await owner.post(`/app/projects/${projectId}/secrets`, {
      codeHostToken: '',
      modelApiKey: '',
      remove: ['modelApiKey'],
    });
    assert.equal(await readProjectSecret(db(), secretKey, projectId, 'codeHostToken'), token);
    assert.equal(await readProjectSecret(db(), secretKey, projectId, 'modelApiKey'), null);
    const stored = await db().query<{ sealed: string }>('SELECT sealed FROM project_secrets');
    assert.ok(stored.every((r) => !r.sealed.includes(token)));
  });

  test('API keys: created once on the page, working on the API, listed by prefix, revoked after confirmation', async () => {
    const url = `/app/projects/${projectId}/keys`;
    const page = await owner.get(url);
    assert.match(page.body, new RegExp(`<code id="project-id" class="copy-value">${projectId}</code>`));
    const created = await owner.post(url, { name: 'CI pipeline', scope: 'admin', expiry: '30d' });
    assert.equal(created.status, 201);
    const key = /value="(dw_[0-9A-Za-z]{38})"/.exec(created.body)![1]!;
    assert.match(created.body, /shown only once/);
    const api = (k: string) =>
      app.inject({ url: `/v2/agent/${projectId}/jobs`, headers: { authorization: `Bearer ${k}` } });
    assert.equal((await api(key)).statusCode, 200);
    const listed = await owner.get(url);
    assert.ok(!listed.body.includes(key), 'the key is not shown again');
    assert.match(listed.body, new RegExp(`<code>${key.slice(0, 8)}`));
    assert.match(listed.body, /CI pipeline/);
    const keyId = /data-key-id="(key_[0-9A-Za-z]+)"/.exec(listed.body)![1]!;
    const confirm = await owner.get(`${url}/${keyId}/revoke`);
    assert.match(confirm.body, /Revoke key “CI pipeline”\?/);
    const revoked = await owner.post(`${url}/${keyId}/revoke`, {});
    assert.equal(revoked.location, `${url}?notice=key-revoked`);
    assert.equal((await api(key)).statusCode, 401);
    // A bad scope is refused by the keys service, named on the form.
    await owner.get(url);
    const bad = await owner.post(url, { name: 'x', scope: 'root', expiry: '' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /id="scope-error"/);
  });

  test('jobs: the prompt box creates one job per form, even when posted twice; an empty prompt is refused', async () => {
    const url = `/app/projects/${projectId}/jobs`;
    await owner.get(url);
    const idempotencyKey = crypto.randomUUID();
    const first = await owner.post(url, { prompt: 'Fix the typos in the guide', idempotencyKey });
    assert.equal(first.status, 303);
    await owner.post(url, { prompt: 'Fix the typos in the guide', idempotencyKey });
    const rows = await db().query<{ prompt: string }>('SELECT prompt FROM jobs WHERE project_id = $1', [
      projectId,
    ]);
    assert.deepEqual(
      rows.map((r) => r.prompt),
      ['Fix the typos in the guide'],
    );
    const list = await owner.get(url);
    assert.match(list.body, /badge-active/);
    const empty = await owner.post(url, { prompt: '   ', idempotencyKey: crypto.randomUUID() });
    assert.equal(empty.status, 400);
    assert.match(empty.body, /must not be empty/);
  });

  test('the scripts’ JSON needs a session, and says so in the API’s error format', async () => {
    const anonymous = await app.inject({ url: `/api/dashboard/projects/${projectId}/jobs` });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().code, 'not_signed_in');
    const bearer = await app.inject({
      url: `/api/dashboard/projects/${projectId}/jobs`,
      headers: { authorization: 'Bearer dw_x' },
    });
    assert.equal(bearer.statusCode, 401, 'API keys do not open dashboard routes');
    const signedIn = await owner.get(`/api/dashboard/projects/${projectId}/jobs`);
    assert.equal(signedIn.status, 200);
    assert.equal(JSON.parse(signedIn.body).jobs.length, 1);
  });

  test('invitations: the owner’s link creates a member once; members cannot invite', async () => {
    await owner.get('/app/team');
    const invited = await owner.post('/app/team/invitations', { email: 'writer@example.com' });
    assert.equal(invited.status, 200);
    const link = /value="(http:\/\/127\.0\.0\.1:3000\/app\/invite#code=([A-Za-z0-9_-]{43}))"/.exec(
      invited.body,
    )!;
    assert.ok(link, 'the link is on the page');
    member = new InjectBrowser(app);
    await member.get('/app/invite');
    const joined = await member.post('/app/invite', {
      token: link[2]!,
      password: 'writer password 1',
      confirm: 'writer password 1',
    });
    assert.equal(joined.location, '/app/projects?notice=joined');
    assert.equal((await member.get('/app/projects')).status, 200);
    const team = await member.get('/app/team');
    assert.match(team.body, /Only the owner can invite people/);
    const refused = await member.post('/app/team/invitations', { email: 'x@example.com' });
    assert.equal(refused.status, 403);
    const reuse = await new InjectBrowser(app).get('/app/invite');
    assert.equal(reuse.status, 200);
  });

  test('members change a project’s agent settings, but only the owner its repository, code host, webhook and secrets', async () => {
    const url = `/app/projects/${projectId}/settings`;
    const before = await getProject(db(), projectId);
    const page = await member.get(url);
    assert.equal(page.status, 200);
    assert.match(
      page.body,
      /<input id="repositoryUrl" name="repositoryUrl" type="url" value="[^"]*" required readonly/,
    );
    assert.doesNotMatch((await owner.get(url)).body, /name="repositoryUrl"[^>]*readonly/);
    await member.get(url);
    const fields = {
      name: 'Renamed by a member',
      repositoryUrl: before.repositoryUrl,
      ref: before.ref,
      codeHostKind: before.codeHost.kind,
      codeHostBaseUrl: '',
      codeHostApiUrl: '',
      model: '',
      maxSteps: '12',
      webhookUrl: '',
      githubAppId: '',
      githubAppInstallationId: '',
    };
    const allowed = await member.post(url, fields);
    assert.equal(allowed.status, 303, allowed.body.slice(0, 300));
    assert.equal((await getProject(db(), projectId)).name, 'Renamed by a member');
    for (const change of [
      { repositoryUrl: 'https://gitlab.com/someone/else' },
      { codeHostKind: 'gitea' },
      { codeHostBaseUrl: 'https://git.example.net' },
      { webhookUrl: 'https://hooks.example.net/x' },
    ]) {
      await member.get(url);
      const refused = await member.post(url, { ...fields, ...change });
      assert.equal(refused.status, 403, JSON.stringify(change));
      assert.match(refused.body, /Only the owner may change/);
    }
    const after = await getProject(db(), projectId);
    assert.equal(after.repositoryUrl, before.repositoryUrl);
    assert.equal(after.codeHost.kind, before.codeHost.kind);
    assert.equal(after.settings.webhookUrl, undefined);
    await member.get(url);
    const secret = await member.post(`/app/projects/${projectId}/secrets`, { codeHostToken: 'ghp_member' });
    assert.equal(secret.status, 403);
    assert.notEqual(await readProjectSecret(db(), secretKey, projectId, 'codeHostToken'), 'ghp_member');
    await member.get('/app/projects');
    const created = await member.post('/app/projects', {
      name: 'x',
      repositoryUrl: 'https://github.com/a/b',
    });
    assert.equal(created.status, 403);
  });

  test('a new repository host suspends the stored code-host token, and the page says so', async () => {
    const url = `/app/projects/${projectId}/settings`;
    await owner.get(url);
    await owner.post(`/app/projects/${projectId}/secrets`, { codeHostToken: 'ghp_owner_token_1' });
    const project = await getProject(db(), projectId);
    await owner.get(url);
    const moved = await owner.post(url, {
      name: project.name,
      repositoryUrl: 'https://gitlab.com/acme/docs',
      ref: project.ref,
      codeHostKind: 'gitlab',
      codeHostBaseUrl: '',
      model: '',
    });
    assert.equal(moved.location, `${url}?notice=settings-saved-secrets-suspended`);
    const shown = await owner.get(moved.location!);
    assert.match(shown.body, /stored token or App key is suspended/);
    assert.match(shown.body, /id="secret-codeHostToken-status">Suspended</);
    assert.match(shown.body, /stored for github at https:\/\/github\.com/);
    // Set again for the new host, it is in use.
    await owner.post(`/app/projects/${projectId}/secrets`, { codeHostToken: 'ghp_owner_token_2' });
    assert.match((await owner.get(url)).body, /id="secret-codeHostToken-status">Set</);
  });

  test('the dashboard’s routes stay out of the OpenAPI document', async () => {
    const paths = Object.keys((await app.inject('/openapi.json')).json().paths);
    assert.ok(paths.some((p) => p.startsWith('/v2/agent/')));
    assert.deepEqual(
      paths.filter((p) => p === '/' || p.startsWith('/app') || p.startsWith('/api/dashboard')),
      [],
    );
  });

  test('unknown project pages are a 404 page, not an error', async () => {
    const page = await owner.get('/app/projects/prj_doesnotexist00000/keys');
    assert.equal(page.status, 404);
    assert.match(page.body, /No project has the id/);
    assert.equal((await owner.get('/app/no-such-page')).status, 404);
  });
});

test('over https the session cookie is Secure', async () => {
  const { openTestDatabase } = await import('../helpers/databases.ts');
  const db = await openTestDatabase('pglite');
  const { app } = await createDashboardApp(db, { publicUrl: 'https://docs-admin.example.com' });
  try {
    const b = new InjectBrowser(app);
    await b.get('/app/setup');
    const code = await createSetupToken(db);
    const done = await b.post(
      '/app/setup',
      { token: code!, ...OWNER, confirm: OWNER.password },
      { origin: 'https://docs-admin.example.com' },
    );
    assert.match(cookieLine(done.headers, 'dw_session')!, /; Secure/);
  } finally {
    await app.close();
    await db.close();
  }
});

test('a first start’s demo project and no model: the welcome, a job that cannot start, one prompt heading', async () => {
  const { openTestDatabase } = await import('../helpers/databases.ts');
  const db = await openTestDatabase('pglite');
  const { app } = await createDashboardApp(db, { defaultModel: null });
  try {
    const demo = await createProject(
      db,
      {
        name: 'Demo docs',
        repositoryUrl: 'https://github.com/example/docs',
      },
      TEST_REPOSITORIES,
    );
    const b = new InjectBrowser(app);
    await b.get('/app/setup');
    const code = await createSetupToken(db);
    const done = await b.post('/app/setup', { token: code!, ...OWNER, confirm: OWNER.password });
    const welcome = await b.get(done.location!);
    assert.match(welcome.body, /Your owner account is ready/);
    assert.match(welcome.body, /Demo docs/);
    assert.doesNotMatch(welcome.body, /Create a project to start/, 'a project exists already');

    const url = `/app/projects/${demo.id}/jobs`;
    await b.get(url);
    const posted = await b.post(url, {
      prompt: 'Fix the typos in the guide',
      idempotencyKey: crypto.randomUUID(),
    });
    assert.equal(posted.status, 303);
    // No model anywhere: the job failed at once, and the page it lands on says so, not "started".
    assert.match(
      posted.location!,
      new RegExp(`^/app/projects/${demo.id}/jobs/job_\\w+\\?notice=job-not-started$`),
    );
    const page = await b.get(posted.location!);
    assert.doesNotMatch(page.body, /Job started/);
    assert.match(page.body, /did not start/);
    assert.match(page.body, /model_not_configured/);
    // One prompt: one "Prompt" heading, not a second label inside it.
    assert.equal(page.body.match(/>Prompts?</g)?.length, 1, 'the word Prompt as a heading or label');

    // The page's range includes its last day; it says how the API and the CLI write the same range.
    const analytics = await b.get(`/app/projects/${demo.id}/analytics?from=2026-01-01&to=2026-01-31`);
    assert.match(analytics.body, /through 2026-01-31/);
    assert.match(analytics.body, /dateFrom=2026-01-01&amp;dateTo=2026-02-01/);
  } finally {
    await app.close();
    await db.close();
  }
});
