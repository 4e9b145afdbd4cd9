// The dashboard in a real browser (Debian's Chromium through playwright-core) against the real
// `docwright serve` on PGlite: first-run setup from the printed link, sign-in, a project, API keys
// that work on the API and stop working when revoked, the copy buttons, CSRF refusals, a job
// created from the prompt box and run by the real agent runner (scripted model, git server, GitHub
// fake) that turns completed in the list without a reload, the job page, analytics against the
// API, and the team page. Every page is checked for labelled fields, console errors and width,
// and photographed at 1280 and 390 px into test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AgentReport, PageViewReport, TimeseriesReport } from '../../src/contract/index.ts';
import type { Database } from '../../src/db/database.ts';
import type { ServeExtension } from '../../src/main/serve-extension.ts';
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { saveJobDiff } from '../../src/modules/jobs/diff/service.ts';
import type { JobRunResult } from '../../src/modules/jobs/runner-contract.ts';
import { type AgentHarness, REPOSITORY, startAgentHarness } from '../e2e/agent-harness.ts';
import { eventually, scriptDocsEdit } from '../e2e/scripts.ts';
import { recordPageViews } from '../helpers/seed-views.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import {
  browserMissing,
  capture,
  cleanArtifacts,
  inPage,
  launchChromium,
  openPage,
  startServe,
  type TestServer,
  tableCells,
  WIDE,
} from './browser/support.ts';

const run = promisify(execFile);
const skip = browserMissing();
const OWNER = { email: 'owner@docs.example', password: 'correct horse battery' };

describe('dashboard in Chromium', { skip: skip ?? false }, () => {
  let h: AgentHarness;
  let db: Database;
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let allow: (pattern: RegExp) => void;
  let projectId: string;
  let adminKey: string;
  /** Held while set: the harness's runs wait for it, so a page can see the job while active. */
  let gate: Promise<void> | null = null;

  const harnessExtension: ServeExtension = {
    name: 'agent harness',
    async start(ctx) {
      db = ctx.db;
      h = await startAgentHarness(ctx.db);
      h.intercept = async (input, real) => {
        if (gate) await gate;
        return withStoredDiff(input.job.id, await real(input));
      };
      return { onJobQueued: () => h.worker.nudge(), close: () => h.close() };
    },
  };

  /**
   * The runner stores a job's diff through its saveDiff option, which the harness does not set:
   * here the branch's real diff against main is read from the git server and stored the same way.
   */
  const withStoredDiff = async (jobId: string, result: JobRunResult): Promise<JobRunResult> => {
    if (result.status === 'completed' && result.branch) {
      const { stdout } = await run('git', [
        '--git-dir',
        h.git.repoPath(REPOSITORY),
        'diff',
        `main...${result.branch}`,
      ]);
      await saveJobDiff(db, jobId, stdout);
    }
    return result;
  };

  const url = (path: string) => `${server.baseUrl}${path}`;
  const apiJson = async <T>(path: string): Promise<T> => (await (await api(path, adminKey)).json()) as T;
  const api = (path: string, key: string) =>
    fetch(url(path), { headers: { authorization: `Bearer ${key}` } });

  before(async () => {
    cleanArtifacts();
    server = await startServe([harnessExtension]);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: WIDE });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    ({ page, problems, allow } = await openPage(context));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the console prints a one-time setup link; it opens the setup page and creates the owner', async () => {
    const link = /^ {2}(http:\/\/\S+\/app\/setup#code=[A-Za-z0-9_-]{43})$/m.exec(server.printed());
    assert.ok(link, `no setup link in:\n${server.printed()}`);
    assert.match(server.printed(), /Dashboard: http:\/\/127\.0\.0\.1:\d+\/app/);
    await page.goto(link[1]!);
    // The code moved from the address bar into the form.
    assert.equal(new URL(page.url()).hash, '');
    assert.equal(await page.getByLabel('Setup code').inputValue(), link[1]!.split('#code=')[1]);
    await page.getByLabel('Email address').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByLabel('Password again').fill(OWNER.password);
    await capture(page, '01-setup');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await page.waitForURL(/\/app\/projects\?notice=welcome$/);
    await page.getByText('Your owner account is ready').waitFor();
    // The link works once.
    const again = await context.newPage();
    await again.goto(link[1]!);
    await again.getByText('docwright is set up').waitFor();
    await again.close();
  });

  test('sign-in refuses a wrong password, and works with the keyboard alone', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/app\/sign-in\?notice=signed-out$/);
    allow(/status of 401/);
    await page.getByLabel('Email address').fill(OWNER.email);
    await page.getByLabel('Password').fill('not the password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The email address or the password is wrong.').waitFor();
    assert.match(page.url(), /\/app\/sign-in$/);
    await capture(page, '02-sign-in-refused');
    assert.equal(
      (await context.cookies()).some((c) => c.name === 'dw_session'),
      false,
    );

    await page.goto(url('/app/sign-in'));
    // Tab from the top of the page to the email field, then type and submit with Enter.
    for (let i = 0; i < 12 && (await inPage(page, 'document.activeElement?.id')) !== 'email'; i++) {
      await page.keyboard.press('Tab');
    }
    assert.equal(
      await inPage(page, 'document.activeElement?.id'),
      'email',
      'the email field is reachable by Tab',
    );
    await page.keyboard.type(OWNER.email);
    await page.keyboard.press('Tab');
    assert.equal(await inPage(page, 'document.activeElement?.id'), 'password');
    await page.keyboard.type(OWNER.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/app\/projects$/);
    const session = (await context.cookies()).find((c) => c.name === 'dw_session');
    assert.ok(session?.httpOnly, 'the session cookie is HttpOnly');
    assert.equal(session?.sameSite, 'Lax');
  });

  test('a project is created from the projects page; its secrets are write-only', async () => {
    await capture(page, '03-projects');
    await page.getByLabel('Name').fill('Handbook');
    await page.getByLabel('Repository URL').fill('https://github.com/acme/handbook');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/app\/projects\/prj_[0-9A-Za-z]+\/settings\?notice=project-created$/);
    projectId = /projects\/(prj_[0-9A-Za-z]+)\//.exec(page.url())![1]!;
    await page.getByLabel('Open pull requests as drafts').check();
    await page.getByLabel('Denied paths').fill('legal/**');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    assert.equal(await page.getByLabel('Open pull requests as drafts').isChecked(), true);
    const token = 'ghp_browserTestToken0123456789abcdefABCD';
    await page.locator('#secret-codeHostToken').fill(token);
    await page.getByRole('button', { name: 'Save secrets' }).click();
    await page.getByText('Secrets saved.').waitFor();
    assert.equal(await page.locator('#secret-codeHostToken-status').textContent(), 'Set');
    assert.equal(await page.locator('#secret-modelApiKey-status').textContent(), 'Not set');
    assert.ok(!(await page.content()).includes(token), 'the token is not in the page');
    assert.equal(await page.locator('#secret-codeHostToken').inputValue(), '');
    await capture(page, '04-settings');
  });

  test('API keys: the projectId copy button copies the real id; a new key is shown once, works, and stops when revoked', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(/\/keys$/);
    await page.getByRole('button', { name: 'Copy project ID' }).click();
    await page.getByText('Copied').first().waitFor();
    assert.equal(await inPage(page, 'navigator.clipboard.readText()'), projectId);

    await page.getByLabel('Name').fill('Docs CI');
    await page.getByLabel('Scope').selectOption('admin');
    await page.getByLabel('Expires').selectOption('90d');
    await page.getByRole('button', { name: 'Create key' }).click();
    adminKey = await page.locator('#new-key-value').inputValue();
    assert.match(adminKey, /^dw_[0-9A-Za-z]{38}$/);
    await page.getByText('It is shown only once').waitFor();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await eventually('the key in the clipboard', async () =>
      (await inPage(page, 'navigator.clipboard.readText()')) === adminKey ? true : null,
    );
    await capture(page, '05-keys-new-key');

    const jobs = await api(`/v2/agent/${projectId}/jobs`, adminKey);
    assert.equal(jobs.status, 200, 'the key works on the API');
    await jobs.body?.cancel();

    // Reloading does not show the key again; the list shows its prefix and name.
    await page.goto(url(`/app/projects/${projectId}/keys`));
    assert.ok(!(await page.content()).includes(adminKey));
    const row = page.locator('tr', { hasText: 'Docs CI' });
    assert.match((await row.textContent()) ?? '', new RegExp(adminKey.slice(0, 8)));
    await row.getByRole('link', { name: /Revoke/ }).click();
    await page.getByRole('heading', { name: 'Revoke key “Docs CI”?' }).waitFor();
    await capture(page, '06-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key was revoked').waitFor();
    assert.equal(
      (await api(`/v2/agent/${projectId}/jobs`, adminKey)).status,
      401,
      'the revoked key stops working',
    );
    await capture(page, '07-keys');

    // A read key for the analytics comparison below.
    await page.getByLabel('Name').fill('Analytics reader');
    await page.getByLabel('Scope').selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    adminKey = await page.locator('#new-key-value').inputValue();
  });

  test('a change without the CSRF token is refused: a tampered form, and a form posted from another origin', async () => {
    allow(/status of 403/);
    const before = (await db.query('SELECT 1 FROM projects')).length;
    await page.goto(url('/app/projects'));
    await inPage(
      page,
      `for (const input of document.querySelectorAll('input[name="_csrf"]')) input.value = 'forged'`,
    );
    await page.getByLabel('Name').fill('Forged');
    await page.getByLabel('Repository URL').fill('https://github.com/acme/forged');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText('This form has expired or did not come from this dashboard').waitFor();

    // Another site on the same host (another port: same site, so Lax cookies go along) posts a
    // form at the dashboard; the browser sends its Origin and no token.
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Win</title><form method="post" action="${url('/app/projects')}">
        <input type="hidden" name="name" value="Evil"><input type="hidden" name="repositoryUrl" value="https://github.com/evil/x">
        <button>Claim prize</button></form>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      await page.getByRole('button', { name: 'Claim prize' }).click();
      await page.getByText('came from another site').waitFor();
    } finally {
      attacker.close();
    }
    assert.equal((await db.query('SELECT 1 FROM projects')).length, before, 'no project was created');
  });

  test('a job from the prompt box: the list turns it completed with the pull request link, without a reload', async () => {
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    scriptDocsEdit(h.llm);
    await page.goto(url(`/app/projects/${h.project.id}/jobs`));
    await page.getByLabel('What should the agent do?').fill('Explain the --yes flag of the installer');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.waitForURL(/\/jobs\?notice=job-created$/);
    const row = page.locator('#jobs-body tr').first();
    const jobId = (await row.getAttribute('data-job-id'))!;
    assert.equal(await row.getAttribute('data-status'), 'active');
    await page.getByText('Watching 1 running job').waitFor();
    await capture(page, '08-jobs-active');
    await inPage(page, 'window.notReloaded = true');
    release();
    gate = null;

    const done = page.locator(`#job-row-${jobId}[data-status="completed"]`);
    await done.waitFor({ timeout: 60_000 });
    const pull = h.github.fake.pulls('acme', 'docs')[0]!;
    assert.equal(await done.locator('a.pr-link').getAttribute('href'), pull.html_url);
    assert.equal(await done.locator('.badge').textContent(), 'completed');
    assert.equal(await inPage(page, 'window.notReloaded'), true, 'the row changed in place');
    await capture(page, '09-jobs-completed');

    // The status filter.
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForURL(/status=failed/);
    assert.equal(await page.locator(`#job-row-${jobId}`).count(), 0);
    await page.getByLabel('Status').selectOption('completed');
    await page.waitForURL(/status=completed/);
    assert.equal(await page.locator(`#job-row-${jobId}`).count(), 1);
  });

  test('the job page shows the prompt, events, diff and pull request; a follow-up runs live; archive', async () => {
    await page.locator('#jobs-body a').first().click();
    await page.waitForURL(/\/jobs\/job_[0-9A-Za-z]+$/);
    await page.getByText('Explain the --yes flag of the installer').first().waitFor();
    const timeline = page.locator('#job-events');
    assert.match((await timeline.textContent()) ?? '', /edit_file docs\/guide\.md/);
    assert.match((await timeline.textContent()) ?? '', /Opened pull request/);
    assert.match(
      (await page.locator('.diff').textContent()) ?? '',
      /\+Run the installer with `--yes` to accept the defaults\./,
    );
    const pull = h.github.fake.pulls('acme', 'docs')[0]!;
    assert.equal(await page.locator('#job-pr a').getAttribute('href'), pull.html_url);
    await capture(page, '10-job-completed');

    h.llm.enqueue(
      reply.toolCall('finish', { title: 'Document the --yes flag', summary: 'Nothing else needed.' }),
    );
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    await page.getByLabel('Follow-up').fill('Also mention the flag in the FAQ if there is one');
    await page.getByRole('button', { name: 'Send follow-up' }).click();
    await page.getByText('Follow-up sent').waitFor();
    assert.equal(await page.locator('#job-status').textContent(), 'active');
    await page.getByText('Live: new events appear as they happen.').waitFor();
    release();
    gate = null;
    await page.locator('#job-status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    await page.locator('#job-events', { hasText: 'Updated pull request' }).waitFor();
    await page.getByText('Follow-up 1').waitFor();
    await page.getByRole('button', { name: 'Archive job' }).click();
    await page.getByText('Job archived.').waitFor();
    assert.equal(await page.locator('#job-status').textContent(), 'archived');
  });

  test('cancel from the job page stops a running job', async () => {
    gate = new Promise(() => {}); // never released: the run waits until cancelled
    h.intercept = async (input, real) => {
      if (!gate) return real(input);
      await new Promise<void>((resolve) =>
        input.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      return { status: 'failed', code: 'cancelled', message: 'Cancelled while running.' };
    };
    try {
      await page.goto(url(`/app/projects/${h.project.id}/jobs`));
      await page.getByLabel('What should the agent do?').fill('Rewrite everything');
      await page.getByRole('button', { name: 'Start job' }).click();
      await page.waitForURL(/notice=job-created/);
      await page.locator('#jobs-body a').first().click();
      await page.getByRole('button', { name: 'Cancel job' }).waitFor();
      await capture(page, '11-job-active');
      await page.getByRole('button', { name: 'Cancel job' }).click();
      await page.getByText('Cancel requested').waitFor();
      assert.equal(await page.locator('#job-status').textContent(), 'failed');
      assert.match((await page.locator('#job-summary').textContent()) ?? '', /cancelled/);
    } finally {
      gate = null;
    }
  });

  test('analytics shows the same totals, top pages and agents as the API, with the chart and CSV', async () => {
    const rows: PageViewCount[] = [];
    for (let i = 0; i < 40; i++) {
      const path = `/docs/page-${String(i).padStart(2, '0')}`;
      for (const day of [10, 11, 12]) {
        const hour = new Date(Date.UTC(2026, 0, day, (i * 5) % 24));
        rows.push({ projectId, hour, path, trafficClass: 'human', views: 3 + ((i * day) % 11) });
        if (i % 3 === 0)
          rows.push({
            projectId,
            hour,
            path,
            trafficClass: 'ai',
            agent: 'GPTBot',
            verification: 'verified',
            views: 2 + (i % 4),
          });
        if (i % 4 === 1)
          rows.push({
            projectId,
            hour,
            path,
            trafficClass: 'ai',
            agent: 'ClaudeBot',
            verification: 'unverified',
            views: 1 + (i % 5),
          });
        if (i % 5 === 2)
          rows.push({ projectId, hour, path, trafficClass: 'bot', agent: 'Googlebot', views: 7 });
      }
    }
    // Outside the range: must not be counted.
    rows.push({
      projectId,
      hour: new Date(Date.UTC(2026, 0, 13, 0)),
      path: '/docs/page-00',
      trafficClass: 'human',
      views: 1000,
    });
    await recordPageViews(db, rows);

    await page.goto(url(`/app/projects/${projectId}/analytics`));
    await page.getByLabel('From (UTC)').fill('2026-01-10');
    await page.getByLabel('To (UTC, included)').fill('2026-01-12');
    await page.getByLabel('Chart by').selectOption('day');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/from=2026-01-10&to=2026-01-12/);

    const range = 'dateFrom=2026-01-10&dateTo=2026-01-13';
    const apiViews = await apiJson<PageViewReport>(
      `/v1/analytics/${projectId}/views?${range}&limit=25&offset=0`,
    );
    const number = async (id: string) =>
      Number(((await page.locator(id).textContent()) ?? '').replaceAll(',', ''));
    assert.equal(await number('#total-human'), apiViews.totals.human);
    assert.equal(await number('#total-ai'), apiViews.totals.ai);
    assert.equal(await number('#total-all'), apiViews.totals.total);
    const tableRows = () => tableCells(page, '#top-pages tbody tr');
    const asApi = (views: { path: string; human: number; ai: number; total: number }[]) =>
      views.map((v) => [v.path, String(v.human), String(v.ai), String(v.total)]);
    assert.deepEqual(await tableRows(), asApi(apiViews.views));
    assert.equal(apiViews.hasMore, true);

    // The chart is drawn by Chart.js with the API's time series.
    const series = await apiJson<TimeseriesReport>(
      `/v1/analytics/${projectId}/timeseries?${range}&interval=day`,
    );
    const charted = await inPage(
      page,
      `Chart.getChart(document.getElementById('traffic-chart')).data.datasets.map((d) => ({ label: d.label, data: d.data }))`,
    );
    assert.deepEqual(charted, [
      { label: 'Human', data: series.buckets.map((b: { human: number }) => b.human) },
      { label: 'AI', data: series.buckets.map((b: { ai: number }) => b.ai) },
    ]);
    assert.equal(await number('#total-bots'), series.totals.bot);
    // Distinct visitors and AI referrals, as their exports answer (none: the views were seeded as counts).
    const visitors = await apiJson<{ totals: { total: number } }>(
      `/v1/analytics/${projectId}/visitors?${range}`,
    );
    assert.equal(await number('#total-visitors'), visitors.totals.total);
    const referrals = await apiJson<{ totals: { views: number } }>(
      `/v1/analytics/${projectId}/referrals?${range}`,
    );
    assert.equal(await number('#total-referrals'), referrals.totals.views);

    const apiAgents = await apiJson<AgentReport>(`/v1/analytics/${projectId}/agents?${range}&limit=10`);
    const agentRows = await tableCells(page, '#ai-agents tbody tr');
    assert.deepEqual(
      agentRows.map((r) => [r[0], r[1], r[2], r[3], r[4]]),
      apiAgents.agents.map((a) => [a.agent, a.operator, a.category, String(a.total), String(a.verified)]),
    );
    await capture(page, '12-analytics');

    // Page 2 of the top pages is the API's offset 25.
    await page.getByRole('link', { name: 'Next', exact: true }).click();
    await page.waitForURL(/page=2/);
    const apiPage2 = await apiJson<PageViewReport>(
      `/v1/analytics/${projectId}/views?${range}&limit=25&offset=25`,
    );
    assert.deepEqual(await tableRows(), asApi(apiPage2.views));
    assert.equal(
      await page.getByRole('link', { name: 'Next', exact: true }).count(),
      apiPage2.hasMore ? 1 : 0,
    );

    // The CSV has every page of the range, in the API's order.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV of all pages' }).click(),
    ]);
    const csv = await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], 'path,human,ai,total');
    assert.equal(lines.length, 41);
    assert.deepEqual(
      lines.slice(1, 26),
      asApi(apiViews.views).map((r) => r.join(',')),
    );
  });

  test('team: the owner invites someone, whose link creates their account in another browser', async () => {
    await page.goto(url('/app/team'));
    await page.getByLabel('Email address').fill('writer@docs.example');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = await page.locator('#invitation-link').inputValue();
    assert.match(link, /\/app\/invite#code=[A-Za-z0-9_-]{43}$/);
    await capture(page, '13-team');

    const other = await browser.newContext({ viewport: WIDE });
    try {
      const { page: invited, problems: theirs } = await openPage(other);
      await invited.goto(link);
      await invited.getByLabel('Password', { exact: true }).fill('writer password 1');
      await invited.getByLabel('Password again').fill('writer password 1');
      await capture(invited, '14-invitation');
      await invited.getByRole('button', { name: 'Create my account' }).click();
      await invited.waitForURL(/notice=joined/);
      await invited.getByText('writer@docs.example').first().waitFor();
      await invited.goto(`${server.baseUrl}/app/team`);
      await invited.getByText('Only the owner can invite people.').waitFor();
      assert.deepEqual(theirs, []);
    } finally {
      await other.close();
    }
  });

  test('no page logged a console error or threw', () => {
    assert.deepEqual(problems, []);
  });
});
