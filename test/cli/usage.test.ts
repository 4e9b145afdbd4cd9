// `docwright usage` as a child process, the typed client and the HTTP export, against a real server
// with seeded model calls: the three agree (JSON, CSV), sums are right, and bad parameters are
// named in the documented error shape.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { DocwrightClient } from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { type LiveServer, startLiveServer } from '../sdk/live-server.ts';
import { type CliResult, cliEnv, runCli, STACK_LINE } from './cli-process.ts';

let db: Database;
let server: LiveServer;
let key: string;
let env: NodeJS.ProcessEnv;
let client: DocwrightClient;
let projectId: string;

// [job, model, day, input, output, cache read, cache write, cost (null: no price)]
const CALLS = [
  ['job_usage1', 'anthropic:claude-sonnet-4-5', '2026-03-02T10:00:00Z', 12000, 350, 0, 9000, 0.048],
  ['job_usage1', 'anthropic:claude-sonnet-4-5', '2026-03-02T10:01:00Z', 12800, 120, 9000, 0, 0.0159],
  ['job_usage2', 'openai:gpt-4.1', '2026-03-03T09:00:00Z', 10000, 200, 0, 0, 0.0216],
  ['job_usage2', 'openai-compatible:llama3.1:8b', '2026-03-04T09:00:00Z', 500, 50, 0, 0, null],
] as const;

before(async () => {
  db = await openTestDatabase('pglite');
  server = await startLiveServer(db);
  const seeded = await seedProject(db);
  projectId = seeded.project.id;
  key = seeded.readKey;
  env = cliEnv({ DOCWRIGHT_URL: server.url, DOCWRIGHT_API_KEY: key, DOCWRIGHT_PROJECT: projectId });
  client = new DocwrightClient({ baseUrl: server.url, apiKey: key });
  for (const id of ['job_usage1', 'job_usage2']) {
    await db.query(
      `INSERT INTO jobs (id, project_id, status, prompt, source_repository, source_ref, model)
       VALUES ($1, $2, 'completed', 'p', 'https://github.com/example/docs', 'main', 'x:y')`,
      [id, projectId],
    );
  }
  for (const [job, model, at, input, output, read, write, cost] of CALLS) {
    await db.query(
      `INSERT INTO model_calls (project_id, job_id, prompt_seq, model, input_tokens, output_tokens,
                                cache_read_tokens, cache_write_tokens, cost_usd, created_at)
       VALUES ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9)`,
      [projectId, job, model, input, output, read, write, cost, at],
    );
  }
});
after(async () => {
  await server.close();
  await db.close();
});

async function cli(args: string[]): Promise<CliResult> {
  const result = await runCli(args, env);
  assert.ok(!result.stdout.includes(key) && !result.stderr.includes(key), 'the key was printed');
  assert.doesNotMatch(result.stderr, STACK_LINE);
  return result;
}

test('the export sums per day, model and job; totals are the sums of the rows', async () => {
  const byDay = await client.usage(projectId, { dateFrom: '2026-03-01', dateTo: '2026-04-01' });
  assert.deepEqual(
    byDay.rows.map((r) => [r.key, r.calls, r.costUsd, r.unpricedCalls]),
    [
      ['2026-03-02', 2, 0.0639, 0],
      ['2026-03-03', 1, 0.0216, 0],
      ['2026-03-04', 1, 0, 1],
    ],
  );
  assert.equal(byDay.totals.costUsd, 0.0855);
  assert.equal(byDay.totals.cacheWriteTokens, 9000);
  assert.equal(byDay.totals.inputTokens, 35300);
  const byJob = await client.usage(projectId, { groupBy: 'job' });
  assert.deepEqual(
    byJob.rows.map((r) => [r.key, r.costUsd]),
    [
      ['job_usage1', 0.0639],
      ['job_usage2', 0.0216],
    ],
  );
  const march3 = await client.usage(projectId, {
    groupBy: 'model',
    dateFrom: '2026-03-03',
    dateTo: '2026-03-04',
  });
  assert.deepEqual(
    march3.rows.map((r) => r.key),
    ['openai:gpt-4.1'],
  );
  assert.equal(march3.budget.monthlyBudgetUsd, null);
});

test('usage --json and --csv print what the client and the CSV answer give', async () => {
  const json = await cli(['usage', '--group-by', 'model', '--json']);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), await client.usage(projectId, { groupBy: 'model' }));

  const csv = await cli(['usage', '--group-by', 'job', '--csv']);
  assert.equal(csv.code, 0, csv.stderr);
  const answer = await fetch(`${server.url}/v2/agent/${projectId}/usage?groupBy=job`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/csv' },
  });
  assert.match(answer.headers.get('content-type') ?? '', /^text\/csv/);
  const served = await answer.text();
  assert.equal(csv.stdout, served);
  assert.equal(
    served,
    'job,calls,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,costUsd,unpricedCalls\r\n' +
      'job_usage1,2,24800,470,9000,9000,0.0639,0\r\njob_usage2,2,10500,250,0,0,0.0216,1\r\n',
  );

  const shown = await cli(['usage']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /\$0\.0855 for 4 model calls \(1 without a price, not counted\)/);
  assert.match(shown.stdout, /2026-03-02 +2 /);
});

test('bad parameters are named: groupBy, dates, an empty range', async () => {
  const ask = (query: string) =>
    fetch(`${server.url}/v2/agent/${projectId}/usage${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
  for (const [query, code, name] of [
    ['?groupBy=week', 'invalid_parameter', 'groupBy'],
    ['?dateFrom=2026-02-30', 'invalid_parameter', 'dateFrom'],
    // Refused before the route runs, as on every route.
    ['?dateFrom=2026%00-01-01', 'nul_character', null],
    ['?dateFrom=2026-03-02&dateTo=2026-03-01', 'invalid_date_range', 'dateTo'],
  ] as const) {
    const res = await ask(query);
    assert.equal(res.status, 400, query);
    const body = (await res.json()) as { code: string; details?: { name: string }[] };
    assert.equal(body.code, code, query);
    if (name !== null) assert.equal(body.details?.[0]?.name, name, query);
  }
  const bad = await cli(['usage', '--group-by', 'week']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /week/);
});
