// `docwright views` and `docwright agents-report` as child processes against a real server with
// seeded page views: the table, --json (every page merged) against the typed client, --csv parsed
// back and compared with the JSON export, and the errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { DocwrightClient } from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';
import { parseCsv } from '../sdk/csv-parse.ts';
import { type LiveServer, startLiveServer } from '../sdk/live-server.ts';
import { type CliResult, cliEnv, runCli, STACK_LINE } from './cli-process.ts';

const HOUR = new Date('2026-03-02T12:00:00Z');
// More paths than one page of 250, so the commands must page.
const PATHS = 260;

let db: Database;
let server: LiveServer;
let key: string;
let env: NodeJS.ProcessEnv;
let client: DocwrightClient;
let projectId: string;

before(async () => {
  db = await openTestDatabase('pglite');
  server = await startLiveServer(db);
  const seeded = await seedProject(db);
  projectId = seeded.project.id;
  key = seeded.readKey;
  env = cliEnv({ DOCWRIGHT_URL: server.url, DOCWRIGHT_API_KEY: key, DOCWRIGHT_PROJECT: projectId });
  client = new DocwrightClient({ baseUrl: server.url, apiKey: key });
  await recordPageViews(db, [
    ...Array.from({ length: PATHS }, (_, i) => ({
      projectId,
      hour: HOUR,
      path: i === 0 ? '/a,"quoted" path' : `/docs/p${String(i).padStart(3, '0')}`,
      trafficClass: 'human' as const,
      views: (i % 17) + 1,
    })),
    ...Array.from({ length: 40 }, (_, i) => ({
      projectId,
      hour: new Date('2026-03-05T08:00:00Z'),
      path: `/docs/p${String(i).padStart(3, '0')}`,
      trafficClass: 'ai' as const,
      agent: i % 2 === 0 ? 'GPTBot' : 'ClaudeBot',
      verification: i % 4 === 0 ? 'verified' : 'unverified',
      views: 2,
    })),
  ]);
});
after(async () => {
  await server.close();
  await db.close();
});

async function cli(args: string[], runEnv = env): Promise<CliResult> {
  const result = await runCli(args, runEnv);
  assert.ok(!result.stdout.includes(key) && !result.stderr.includes(key), 'the key was printed');
  assert.doesNotMatch(result.stderr, STACK_LINE);
  return result;
}

test('views --json: one object {totals, views} with the rows of every page', async () => {
  const result = await cli(['views', '--json']);
  assert.equal(result.code, 0, result.stderr);
  const printed = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(printed), ['totals', 'views']);
  // /docs/p000 has only AI views (the first human path is the quoted one).
  assert.equal(printed.views.length, PATHS + 1);
  const report = await client.viewsReport(projectId);
  assert.deepEqual(printed, { totals: report.totals, views: report.views });
  assert.equal(
    printed.views.reduce((sum: number, v: { total: number }) => sum + v.total, 0),
    printed.totals.total,
  );
});

test('views --csv parses back to the JSON export, every page, header once', async () => {
  const [csv, json] = await Promise.all([cli(['views', '--csv']), cli(['views', '--json'])]);
  assert.equal(csv.code, 0, csv.stderr);
  const [header, ...records] = parseCsv(csv.stdout);
  assert.deepEqual(header, ['path', 'human', 'ai', 'total']);
  const views = JSON.parse(json.stdout).views;
  assert.deepEqual(
    records.map(([path, human, ai, total]) => ({
      path,
      human: Number(human),
      ai: Number(ai),
      total: Number(total),
    })),
    views,
  );
  assert.ok(records.some((r) => r[0] === '/a,"quoted" path'));
});

test('views with --from and --to: only that range', async () => {
  const result = await cli(['views', '--from', '2026-03-05', '--to', '2026-03-06', '--json']);
  assert.equal(result.code, 0, result.stderr);
  const printed = JSON.parse(result.stdout);
  assert.deepEqual(printed.totals, { human: 0, ai: 80, total: 80 });
  assert.equal(printed.views.length, 40);
});

test('views as a table for people: totals first, then aligned rows', async () => {
  const result = await cli(['views', '--from', '2026-03-05']);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.match(
    lines[0]!,
    /^Page views from 2026-03-05T00:00:00\.000Z to now: 80 \(human 0, AI 80\) on 40 pages$/,
  );
  assert.match(lines[2]!, /^PATH +HUMAN +AI +TOTAL$/);
  assert.equal(lines.length, 3 + 40);
  assert.match(lines[3]!, /^\/docs\/p000 +0 +2 +2$/);
  const empty = await cli(['views', '--from', '2030-01-01']);
  assert.match(empty.stdout, /No page views in this range\./);
});

test('agents-report: JSON, CSV and the table', async () => {
  const json = await cli(['agents-report', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const printed = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(printed), ['totals', 'agents']);
  assert.deepEqual(printed.totals, { verified: 20, unverified: 60, total: 80 });
  assert.deepEqual(
    printed.agents.map((a: { agent: string; verified: number; total: number }) => [
      a.agent,
      a.verified,
      a.total,
    ]),
    [
      ['ClaudeBot', 0, 40],
      ['GPTBot', 20, 40],
    ],
  );
  const csv = await cli(['agents-report', '--csv']);
  const [header, ...records] = parseCsv(csv.stdout);
  assert.deepEqual(header, ['agent', 'operator', 'category', 'verified', 'unverified', 'total']);
  assert.deepEqual(
    records.map((r) => [r[0], Number(r[3]), Number(r[4]), Number(r[5])]),
    printed.agents.map((a: { agent: string; verified: number; unverified: number; total: number }) => [
      a.agent,
      a.verified,
      a.unverified,
      a.total,
    ]),
  );
  const table = await cli(['agents-report']);
  assert.match(
    table.stdout,
    /^AI-agent views from the beginning to now: 80 \(verified 20, unverified 60\) by 2 agents/,
  );
  assert.match(table.stdout, /\nAGENT +OPERATOR +CATEGORY +VERIFIED +UNVERIFIED +TOTAL\n/);
});

test('errors: a bad range is the API message with its code; --json with --csv is a usage error', async () => {
  const range = await cli(['views', '--from', '2026-03-05', '--to', '2026-03-01']);
  assert.equal(range.code, 1);
  assert.match(range.stderr, /code: invalid_date_range \(HTTP 400\)/);
  assert.match(range.stderr, /request id: req_/);
  const both = await cli(['views', '--json', '--csv']);
  assert.equal(both.code, 2);
  const wrongKey = await cli(['views'], { ...env, DOCWRIGHT_API_KEY: 'dw_short' });
  assert.equal(wrongKey.code, 1);
  assert.match(wrongKey.stderr, /code: missing_api_key \(HTTP 401\)/);
});

test('help of views and agents-report is complete, with examples and the variables', async () => {
  for (const command of ['views', 'agents-report']) {
    const result = await cli([command, '--help']);
    assert.equal(result.code, 0);
    for (const text of [
      '--from',
      '--to',
      '--json',
      '--csv',
      '--url',
      '--key',
      '--project',
      'DOCWRIGHT_URL',
      'Examples:',
    ]) {
      assert.ok(result.stdout.includes(text), `${command} --help lacks ${text}`);
    }
  }
  const top = await cli(['--help']);
  for (const text of ['jobs', 'views', 'agents-report', 'DOCWRIGHT_API_KEY', 'DOCWRIGHT_PROJECT']) {
    assert.ok(top.stdout.includes(text), `docwright --help lacks ${text}`);
  }
});
