// The format filter and split and the MCP calls export through the typed client and the CLI,
// against a real server fed through the ingest API: every page merged (more calls than one page
// of 250), the client's CSV and the server's CSV pages parsed back to the JSON, and
// `docwright agents-report --format/--split`, `docwright views --format` and `docwright
// mcp-tools` as child processes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { DocwrightClient, mcpToolsToCsv, VIEW_FORMATS, viewsToCsv } from '../../src/sdk/index.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { parseCsv } from '../sdk/csv-parse.ts';
import { type LiveServer, startLiveServer } from '../sdk/live-server.ts';
import { type CliResult, cliEnv, runCli, STACK_LINE } from './cli-process.ts';

const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const AT = '2026-03-02T12:10:00Z';
// More (tool, client) rows than one page of 250, so the calls must page.
const TOOLS = 130;

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
  const records: object[] = [
    { path: '/guide.md', userAgent: GPTBOT, timestamp: AT },
    { path: '/guide', userAgent: GPTBOT, timestamp: AT },
    { path: '/llms.txt', userAgent: GPTBOT, timestamp: AT },
  ];
  for (let i = 0; i < TOOLS; i++) {
    const tool = i === 0 ? 'search,"quoted"' : `tool_${String(i).padStart(3, '0')}`;
    for (const clientName of ['claude-ai', 'cursor'])
      records.push({ type: 'mcp', tool, clientName, clientVersion: '1.0', timestamp: AT });
  }
  const res = await server.app.inject({
    method: 'POST',
    url: `/v1/analytics/${projectId}/events`,
    headers: bearer(seeded.ingestKey),
    payload: records,
  });
  assert.equal(res.statusCode, 202, res.body);
  assert.equal(res.json().accepted, records.length);
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

test('client: agents and timeseries take format and split; the filtered answers add up', async () => {
  const split = await client.agentsReport(projectId, { split: 'format', pageSize: 1 });
  assert.deepEqual(split.totals, {
    verified: 0,
    unverified: 3 + 2 * TOOLS,
    total: 3 + 2 * TOOLS,
    formats: { html: 1, markdown: 1, llms: 1, mcp: 2 * TOOLS },
  });
  let sum = 0;
  for (const format of VIEW_FORMATS) {
    const page = await client.agents(projectId, { format });
    sum += page.totals.total;
    assert.equal('formats' in page.totals, false, 'no split unless asked');
  }
  assert.equal(sum, split.totals.total);
  const csv = await client.agentsCsv(projectId, { format: 'markdown' });
  // The filter's format is a column of its own (docs/analytics-formats.md#filter-and-split).
  assert.equal(
    csv,
    'agent,operator,category,verified,unverified,total,format\r\nGPTBot,OpenAI,training,0,1,1,markdown\r\n',
  );
  const series = await client.timeseries(projectId, {
    format: 'llms',
    split: 'format',
    dateFrom: '2026-03-02',
  });
  assert.deepEqual(series.totals, { human: 0, ai: 1, bot: 0, total: 1 });
  assert.deepEqual(series.formats?.llms, { human: 0, ai: 1, bot: 0, total: 1 });
});

test('client: the views export takes format; the four formats add up to every view, page by page', async () => {
  const all = await client.viewsReport(projectId);
  const perPath = new Map<string, number>();
  let total = 0;
  for (const format of VIEW_FORMATS) {
    // pageSize 1: the filtered export pages like the unfiltered one.
    const report = await client.viewsReport(projectId, { format, pageSize: 1 });
    total += report.totals.total;
    for (const row of report.views) perPath.set(row.path, (perPath.get(row.path) ?? 0) + row.total);
  }
  assert.equal(total, all.totals.total);
  assert.deepEqual([...perPath].sort(), all.views.map((v) => [v.path, v.total]).sort());
  assert.deepEqual((await client.views(projectId, { format: 'markdown' })).views, [
    { path: '/guide', human: 0, ai: 1, total: 1 },
  ]);
  const csv = 'path,human,ai,total,format\r\n/guide,0,1,1,markdown\r\n';
  assert.equal(await client.viewsCsv(projectId, { format: 'markdown' }), csv);
  assert.equal(
    viewsToCsv((await client.viewsReport(projectId, { format: 'markdown' })).views, { format: 'markdown' }),
    csv,
  );
});

test('views --format, as a table, JSON and CSV; a bad format is refused', async () => {
  const [table, json, csv, bad] = await Promise.all([
    cli(['views', '--format', 'llms']),
    cli(['views', '--format', 'mcp', '--json']),
    cli(['views', '--format', 'markdown', '--csv']),
    cli(['views', '--format', 'pdf']),
  ]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^Page views served as llms from .*: 1 \(human 0, AI 1\) on 1 page/);
  assert.match(table.stdout, /\/llms\.txt/);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).views, [
    { path: '/mcp', human: 0, ai: 2 * TOOLS, total: 2 * TOOLS },
  ]);
  assert.equal(csv.code, 0, csv.stderr);
  assert.equal(csv.stdout, 'path,human,ai,total,format\r\n/guide,0,1,1,markdown\r\n');
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /pdf/);
});

test('client: the MCP calls export, one page, every page merged, and CSV both ways', async () => {
  const page = await client.mcpTools(projectId, { limit: 3 });
  assert.deepEqual(page.totals, { calls: 2 * TOOLS });
  assert.equal(page.calls.length, 3);
  assert.equal(page.hasMore, true);
  assert.equal(page.tools.length, 100, 'the 100 most-called tools');
  assert.deepEqual(page.clients, [
    { clientName: 'claude-ai', calls: TOOLS },
    { clientName: 'cursor', calls: TOOLS },
  ]);
  const report = await client.mcpToolsReport(projectId);
  assert.equal(report.calls.length, 2 * TOOLS);
  const serverCsv = await client.mcpToolsCsv(projectId);
  assert.equal(serverCsv, mcpToolsToCsv(report.calls));
  const [header, ...rows] = parseCsv(serverCsv);
  assert.deepEqual(header, ['tool', 'method', 'clientName', 'clientVersion', 'calls']);
  assert.deepEqual(
    rows.map(([tool, method, clientName, clientVersion, calls]) => ({
      tool,
      method,
      clientName,
      clientVersion,
      calls: Number(calls),
    })),
    report.calls,
  );
  assert.equal(rows[0]![0], 'search,"quoted"');
});

test('agents-report --format --split and mcp-tools, as JSON, CSV and tables', async () => {
  const [split, filtered, tools, toolsCsv, table, bad] = await Promise.all([
    cli(['agents-report', '--split', '--json']),
    cli(['agents-report', '--format', 'mcp']),
    cli(['mcp-tools', '--json']),
    cli(['mcp-tools', '--csv']),
    cli(['mcp-tools', '--from', '2026-03-01']),
    cli(['agents-report', '--format', 'pdf']),
  ]);
  assert.equal(split.code, 0, split.stderr);
  const printed = JSON.parse(split.stdout);
  assert.deepEqual(printed.totals.formats, { html: 1, markdown: 1, llms: 1, mcp: 2 * TOOLS });
  assert.equal(filtered.code, 0, filtered.stderr);
  assert.match(filtered.stdout, /^AI-agent views served as mcp from .*: 260 /);
  assert.match(filtered.stdout, /mcp-client/);
  assert.doesNotMatch(filtered.stdout, /GPTBot/);
  assert.equal(tools.code, 0, tools.stderr);
  const json = JSON.parse(tools.stdout);
  assert.equal(json.calls.length, 2 * TOOLS);
  assert.deepEqual(json.totals, { calls: 2 * TOOLS });
  assert.equal(toolsCsv.code, 0, toolsCsv.stderr);
  assert.equal(parseCsv(toolsCsv.stdout).length, 2 * TOOLS + 1);
  assert.match(
    table.stdout.split('\n')[0]!,
    /^MCP calls from 2026-03-01T00:00:00\.000Z to now: 260 in 260 rows/,
  );
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /pdf/);
});
