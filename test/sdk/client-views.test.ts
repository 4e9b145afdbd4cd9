// The typed client's analytics calls against a real server: one page, every page (offset += limit
// while hasMore), the merged report, date bounds, typed errors, and CSV written by the client and
// parsed back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  agentsToCsv,
  BadRequestError,
  DocwrightClient,
  type PageViewRow,
  viewsToCsv,
} from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';
import { parseCsv } from './csv-parse.ts';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { type LiveServer, startLiveServer } from './live-server.ts';

const DAY1 = new Date('2026-01-05T10:15:00Z');
const DAY2 = new Date('2026-01-06T08:00:00Z');
// Awkward paths for CSV: a comma, a quote, and a non-ASCII character.
const ODD_PATHS = ['/a,b', '/say-"hi"', '/café'];

await forEachBackend('typed client: analytics', ({ db }) => {
  let server: LiveServer;
  let proxy: FaultProxy;
  let projectId: string;
  let client: DocwrightClient;
  let viaProxy: DocwrightClient;

  before(async () => {
    server = await startLiveServer(db());
    proxy = await startFaultProxy(server.url);
    const seeded = await seedProject(db());
    projectId = seeded.project.id;
    client = new DocwrightClient({ baseUrl: server.url, apiKey: seeded.readKey });
    viaProxy = new DocwrightClient({ baseUrl: proxy.url, apiKey: seeded.readKey });
    // 23 paths on day 1 (totals 1..23, some tied), humans and AI agents, and bots that count in neither.
    const paths = [...Array.from({ length: 20 }, (_, i) => `/guide/page-${i}`), ...ODD_PATHS];
    await recordPageViews(
      db(),
      paths.flatMap((path, i) => [
        { projectId, hour: DAY1, path, trafficClass: 'human' as const, views: Math.floor(i / 2) + 1 },
        { projectId, hour: DAY1, path, trafficClass: 'ai' as const, agent: 'GPTBot', views: i % 3 },
        { projectId, hour: DAY1, path, trafficClass: 'bot' as const, agent: 'Googlebot', views: 7 },
      ]),
    );
    await recordPageViews(db(), [
      { projectId, hour: DAY2, path: '/guide/page-0', trafficClass: 'human', views: 100 },
      { projectId, hour: DAY2, path: '/day-two-only', trafficClass: 'ai', agent: 'ClaudeBot', views: 3 },
      {
        projectId,
        hour: DAY2,
        path: '/day-two-only',
        trafficClass: 'ai',
        agent: 'GPTBot',
        verification: 'verified',
        views: 4,
      },
      { projectId, hour: DAY2, path: '/guide/page-1', trafficClass: 'ai', agent: 'PerplexityBot', views: 2 },
    ]);
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  test('views: one page with totals and hasMore', async () => {
    const page = await client.views(projectId, { limit: 5 });
    assert.equal(page.views.length, 5);
    assert.equal(page.hasMore, true);
    assert.equal(page.totals.total, page.totals.human + page.totals.ai);
    const last = await client.views(projectId, { limit: 5, offset: 20 });
    assert.equal(last.views.length, 4);
    assert.equal(last.hasMore, false);
    assert.deepEqual(last.totals, page.totals, 'totals are site-wide whatever the page');
  });

  test('allViews walks every page with offset += limit and yields each row once, in order', async () => {
    const single = await client.views(projectId, { limit: 250 });
    assert.equal(single.hasMore, false);
    assert.equal(single.views.length, 24);
    proxy.requests.length = 0;
    const rows: PageViewRow[] = [];
    for await (const row of viaProxy.allViews(projectId, { pageSize: 5 })) rows.push(row);
    assert.deepEqual(rows, single.views);
    const offsets = proxy.requests.map((r) => new URL(r.url, proxy.url).searchParams);
    assert.deepEqual(
      offsets.map((q) => [q.get('limit'), q.get('offset')]),
      [
        ['5', '0'],
        ['5', '5'],
        ['5', '10'],
        ['5', '15'],
        ['5', '20'],
      ],
    );
    // Ordering the export promises: total descending, then path ascending.
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      assert.ok(a.total > b.total || (a.total === b.total && a.path < b.path), `${a.path} before ${b.path}`);
    }
  });

  test('viewsReport merges every page into one {totals, views, range}', async () => {
    const merged = await client.viewsReport(projectId, { pageSize: 7 });
    const single = await client.views(projectId, { limit: 250 });
    assert.deepEqual(merged, { totals: single.totals, views: single.views, range: single.range });
    assert.equal(
      merged.views.reduce((sum, row) => sum + row.total, 0),
      merged.totals.total,
      'the rows add up to the totals',
    );
  });

  test('dateFrom and dateTo reach the server (dateTo exclusive)', async () => {
    const day1 = await client.viewsReport(projectId, { dateFrom: '2026-01-05', dateTo: '2026-01-06' });
    const day2 = await client.viewsReport(projectId, { dateFrom: '2026-01-06' });
    assert.equal(day1.views.length, 23);
    assert.ok(!day1.views.some((r) => r.path === '/day-two-only'));
    assert.deepEqual(
      day2.views.map((r) => [r.path, r.total]),
      [
        ['/guide/page-0', 100],
        ['/day-two-only', 7],
        ['/guide/page-1', 2],
      ],
    );
    assert.equal(day1.range.from, '2026-01-05T00:00:00.000Z');
    assert.equal(day1.range.to, '2026-01-06T00:00:00.000Z');
  });

  test('bad parameters are typed errors naming the parameter', async () => {
    const range = await client
      .views(projectId, { dateFrom: '2026-02-01', dateTo: '2026-01-01' })
      .catch((e) => e);
    assert.ok(range instanceof BadRequestError, String(range));
    assert.equal(range.code, 'invalid_date_range');
    assert.equal(range.details[0]?.name, 'dateTo');
    const limit = await client.views(projectId, { limit: 251 }).catch((e) => e);
    assert.ok(limit instanceof BadRequestError && limit.code === 'invalid_parameter', String(limit));
    assert.equal(limit.details[0]?.name, 'limit');
  });

  test('CSV written by the client parses back to the JSON export', async () => {
    const report = await client.viewsReport(projectId, { pageSize: 4 });
    const csv = viewsToCsv(report.views);
    const [header, ...records] = parseCsv(csv);
    assert.deepEqual(header, ['path', 'human', 'ai', 'total']);
    assert.deepEqual(
      records.map(([path, human, ai, total]) => ({
        path,
        human: Number(human),
        ai: Number(ai),
        total: Number(total),
      })),
      report.views,
    );
    for (const path of ODD_PATHS)
      assert.ok(
        records.some((r) => r[0] === path),
        path,
      );
  });

  test('CSV from the server, every page under one header, is the JSON export written as CSV', async () => {
    const report = await client.viewsReport(projectId);
    proxy.requests.length = 0;
    const csv = await viaProxy.viewsCsv(projectId, { pageSize: 5 });
    assert.equal(proxy.requests.length, 5, 'five pages of five');
    assert.ok(proxy.requests.every((r) => r.headers.accept?.startsWith('text/csv')));
    assert.equal(csv, viewsToCsv(report.views));
    const [header, ...records] = parseCsv(csv);
    assert.deepEqual(header, ['path', 'human', 'ai', 'total']);
    assert.equal(records.length, report.views.length);
  });

  test('a server that ignores Accept: text/csv answers JSON, and the client writes the same CSV', async () => {
    proxy.setFault(() => ({ kind: 'rewrite-headers', headers: { accept: 'application/json' } }));
    try {
      assert.equal(await viaProxy.viewsCsv(projectId, { pageSize: 5 }), await client.viewsCsv(projectId));
      assert.equal(await viaProxy.agentsCsv(projectId, { pageSize: 1 }), await client.agentsCsv(projectId));
    } finally {
      proxy.setFault(() => null);
    }
  });

  test('agents: one page, every page, the merged report and its CSV', async () => {
    const single = await client.agents(projectId, { limit: 250 });
    assert.deepEqual(
      single.agents.map((a) => a.agent),
      ['GPTBot', 'ClaudeBot', 'PerplexityBot'],
    );
    assert.equal(single.totals.total, single.totals.verified + single.totals.unverified);
    const gpt = single.agents[0]!;
    assert.equal(gpt.verified, 4);
    assert.equal(gpt.operator, 'OpenAI');
    const rows = [];
    for await (const row of client.allAgents(projectId, { pageSize: 1 })) rows.push(row);
    assert.deepEqual(rows, single.agents);
    const merged = await client.agentsReport(projectId, { pageSize: 2 });
    assert.deepEqual(merged, {
      totals: single.totals,
      agents: single.agents,
      range: single.range,
      operators: single.operators,
    });
    const csv = await client.agentsCsv(projectId, { pageSize: 2 });
    assert.equal(csv, agentsToCsv(single.agents));
    assert.equal(parseCsv(csv).length, 4);
    // With the format split asked, the server's CSV has its columns, as the client writes them.
    const asked = { format: 'html' as const, split: 'format' as const };
    const splitCsv = await client.agentsCsv(projectId, { pageSize: 2, ...asked });
    const splitRows = (await client.agentsReport(projectId, asked)).agents;
    assert.equal(splitCsv, agentsToCsv(splitRows, asked));
    assert.deepEqual(parseCsv(splitCsv)[0]?.slice(6), ['format', 'html', 'markdown', 'llms', 'mcp']);
    // Day 1 only: one agent.
    const day1 = await client.agentsReport(projectId, { dateFrom: '2026-01-05', dateTo: '2026-01-06' });
    assert.deepEqual(
      day1.agents.map((a) => a.agent),
      ['GPTBot'],
    );
  });

  test('timeseries: daily buckets whose sums match the page-view totals', async () => {
    const series = await client.timeseries(projectId, { interval: 'day' });
    assert.equal(series.interval, 'day');
    assert.deepEqual(
      series.buckets.map((b) => b.start),
      ['2026-01-05T00:00:00.000Z', '2026-01-06T00:00:00.000Z'],
    );
    const views = await client.views(projectId);
    assert.equal(series.totals.human, views.totals.human);
    assert.equal(series.totals.ai, views.totals.ai);
    assert.equal(series.buckets[0]!.bot, 23 * 7, 'bots are counted in the series, apart');
    const hourly = await client.timeseries(projectId, {
      interval: 'hour',
      dateFrom: '2026-01-05',
      dateTo: '2026-01-06',
    });
    assert.equal(hourly.buckets.length, 24);
    const error = await client
      .timeseries(projectId, { interval: 'hour', dateFrom: '2000-01-01', dateTo: '2026-01-01' })
      .catch((e) => e);
    assert.ok(error instanceof BadRequestError && error.code === 'too_many_buckets', String(error));
  });
});
