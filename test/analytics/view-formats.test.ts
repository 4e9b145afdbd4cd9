// View formats (html, markdown, llms, mcp) and MCP calls, on both engines through the real app:
// detection from path, Accept header and an explicit field; MCP records counted as views with
// format mcp and per tool and client; the format filter and split of /timeseries and /agents
// adding up exactly; bad records rejected alone, naming the field; log import of .md and
// llms.txt lines.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { isLlmsPath, viewFormatOf } from '../../src/modules/analytics/classification/view-format.ts';
import { databaseImportSink } from '../../src/modules/analytics/import/database-sink.ts';
import { lineParserFactory } from '../../src/modules/analytics/import/formats.ts';
import { importSource } from '../../src/modules/analytics/import/importer.ts';
import { openLogSource } from '../../src/modules/analytics/import/source.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { CHROME, combinedLine, GOOGLEBOT, GPTBOT, logText } from './import-fixtures.ts';
import { type IngestAnswer, ingestTestApp, postNdjson, postRecords } from './ingest-helpers.ts';

const FORMATS = ['html', 'markdown', 'llms', 'mcp'] as const;
const HTTP_LIBRARY = 'python-requests/2.32.3';
const CLAUDE_USER = 'Claude-User (claude-code/2.1.90; +https://support.anthropic.com/)';

test('the format comes from the llms files, the .md flag and the Accept header, in that order', () => {
  assert.equal(viewFormatOf('/guide', false, undefined), 'html');
  assert.equal(viewFormatOf('/guide', true, undefined), 'markdown');
  assert.equal(viewFormatOf('/guide', false, 'text/markdown, text/html;q=0.9'), 'markdown');
  assert.equal(viewFormatOf('/guide', false, 'text/html, text/markdown;q=0.9'), 'html');
  assert.equal(viewFormatOf('/guide', false, '*/*'), 'html');
  assert.equal(viewFormatOf('/llms.txt', false, 'text/markdown'), 'llms');
  assert.equal(viewFormatOf('/llms-full.txt', false, undefined), 'llms');
  assert.equal(viewFormatOf('/docs/LLMS.txt', false, undefined), 'llms');
  assert.equal(viewFormatOf('/notllms.txt', false, undefined), 'html');
  assert.equal(viewFormatOf('/llms.txt/more', false, undefined), 'html');
  assert.equal(isLlmsPath('/robots.txt'), false);
  assert.equal(isLlmsPath('/a/llms.txt'), true);
});

const DAY = '?dateFrom=2026-10-21&dateTo=2026-10-22';
const at = (hour: number) => new Date(Date.UTC(2026, 9, 21, hour, 5)).toISOString();

/** Records of every format through both ingest paths; what each must count as is noted. */
function mixedRecords(): object[] {
  return [
    // Hour 9, the fast path (no headers, no format or MCP fields).
    { path: '/guide', userAgent: CHROME, timestamp: at(9) }, // human html
    { path: '/guide.md', userAgent: CHROME, timestamp: at(9) }, // human markdown (a person clicked .md)
    { path: '/guide.md', userAgent: GPTBOT, timestamp: at(9) }, // ai GPTBot markdown
    { path: '/guide', userAgent: HTTP_LIBRARY, accept: 'text/markdown, text/html;q=0.5', timestamp: at(9) }, // ai markdown-client markdown
    { path: '/llms.txt', userAgent: GPTBOT, timestamp: at(9) }, // ai GPTBot llms
    { url: 'https://docs.example.com/docs/llms-full.txt?x=1', userAgent: CHROME, timestamp: at(9) }, // human llms
    { path: '/guide', userAgent: GOOGLEBOT, timestamp: at(9) }, // bot html
    { path: '/llms.txt', userAgent: GOOGLEBOT, timestamp: at(9) }, // bot llms
    // Hour 10, the general path.
    { path: '/api', userAgent: CHROME, format: 'markdown', timestamp: at(10) }, // human markdown (named)
    { path: '/x.md', userAgent: GPTBOT, format: 'html', timestamp: at(10) }, // ai GPTBot html (named wins)
    // An Accept preferring Markdown makes any client a markdown-client (traffic-classification.md).
    {
      path: '/api',
      userAgent: CHROME,
      headers: { 'x-any': '1' },
      accept: 'text/markdown',
      timestamp: at(10),
    }, // ai markdown-client markdown
    // MCP calls.
    {
      type: 'mcp',
      tool: 'search',
      clientName: 'claude-ai',
      clientVersion: '0.1.0',
      userAgent: 'python-httpx/0.28.1',
      timestamp: at(10),
    }, // ai mcp-client, /mcp
    {
      type: 'mcp',
      tool: 'search',
      clientName: 'cursor',
      clientVersion: '1.7.2',
      userAgent: CLAUDE_USER,
      timestamp: at(10),
    }, // ai (the listed agent)
    { type: 'mcp', method: 'tools/list', clientName: 'cursor', clientVersion: '1.7.2', timestamp: at(10) }, // ai mcp-client (no user agent)
    { type: 'mcp', tool: 'search', clientName: 'inspector', userAgent: CHROME, timestamp: at(10) }, // human (a browser)
    {
      type: 'mcp',
      tool: 'get_page',
      path: '/guide',
      clientName: 'claude-ai',
      clientVersion: '0.1.0',
      timestamp: at(10),
    }, // ai mcp-client, /guide
  ];
}

await forEachBackend('view formats and MCP calls', ({ db }) => {
  const get = async (app: Awaited<ReturnType<typeof ingestTestApp>>, key: string, url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: bearer(key) });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };

  test('every format is counted; the format filter and split of /timeseries and /agents add up exactly', async () => {
    const app = await ingestTestApp(db());
    const { project, ingestKey, readKey } = await seedProject(db());
    const base = `/v1/analytics/${project.id}`;
    const res = await postRecords(app, project.id, ingestKey, mixedRecords());
    assert.equal(res.statusCode, 202, res.body);
    const answer: IngestAnswer = res.json();
    assert.deepEqual(answer, { accepted: 16, dropped: {}, rejected: [] });

    const series = (query: string) =>
      get(app, readKey, `${base}/timeseries${DAY}&interval=hour&split=format${query}`);
    const all = await series('');
    const byFormat = Object.fromEntries(
      await Promise.all(FORMATS.map(async (f) => [f, await series(`&format=${f}`)] as const)),
    );
    const expected = {
      html: { human: 1, ai: 1, bot: 1, total: 2 },
      markdown: { human: 2, ai: 3, bot: 0, total: 5 },
      llms: { human: 1, ai: 1, bot: 1, total: 2 },
      mcp: { human: 1, ai: 4, bot: 0, total: 5 },
    };
    for (const f of FORMATS) assert.deepEqual(byFormat[f].totals, expected[f], f);
    assert.deepEqual(all.totals, { human: 5, ai: 9, bot: 2, total: 14 });
    assert.deepEqual(all.formats, expected, 'the split of the unfiltered series');
    for (const f of FORMATS) {
      // With a filter, the split holds that format only.
      for (const other of FORMATS) {
        const want = other === f ? expected[f] : { human: 0, ai: 0, bot: 0, total: 0 };
        assert.deepEqual(byFormat[f].formats[other], want, `${f} split ${other}`);
      }
    }
    // Bucket by bucket, the four filtered series add up to the unfiltered one.
    assert.equal(all.buckets.length, 24);
    for (let i = 0; i < all.buckets.length; i++) {
      const sum = { human: 0, ai: 0, bot: 0, total: 0 };
      for (const f of FORMATS) {
        const bucket = byFormat[f].buckets[i];
        assert.equal(bucket.start, all.buckets[i].start);
        for (const c of ['human', 'ai', 'bot', 'total'] as const) sum[c] += bucket[c];
      }
      const { start: _start, ...counts } = all.buckets[i];
      assert.deepEqual(sum, counts, all.buckets[i].start);
    }
    assert.deepEqual(
      { human: byFormat.mcp.buckets[10].human, ai: byFormat.mcp.buckets[10].ai },
      { human: 1, ai: 4 },
    );
    // Without split=format the answers keep their former shape.
    assert.equal('formats' in (await get(app, readKey, `${base}/timeseries${DAY}&format=mcp`)), false);
    const plainAgents = await get(app, readKey, `${base}/agents${DAY}`);
    assert.equal('formats' in plainAgents.totals, false);
    assert.equal('formats' in plainAgents.agents[0], false);
    // Daily buckets read the daily level: the same split.
    const daily = await get(app, readKey, `${base}/timeseries${DAY}&interval=day&split=format`);
    assert.deepEqual(daily.formats, expected);

    // /agents: every row's split adds up to its total, the totals' split to the total; the
    // filtered exports add up to the unfiltered one, agent by agent.
    const agents = await get(app, readKey, `${base}/agents${DAY}&split=format`);
    assert.equal(agents.totals.total, 9);
    assert.deepEqual(agents.totals.formats, { html: 1, markdown: 3, llms: 1, mcp: 4 });
    for (const row of agents.agents) {
      const sum = FORMATS.reduce((n, f) => n + row.formats[f], 0);
      assert.equal(sum, row.total, row.agent);
    }
    const gptbot = agents.agents.find((a: { agent: string }) => a.agent === 'GPTBot');
    assert.deepEqual(gptbot.formats, { html: 1, markdown: 1, llms: 1, mcp: 0 });
    const mcpClient = agents.agents.find((a: { agent: string }) => a.agent === 'mcp-client');
    assert.deepEqual(
      { ...mcpClient, formats: mcpClient.formats.mcp },
      {
        agent: 'mcp-client',
        operator: null,
        category: 'other_ai',
        verified: 0,
        unverified: 3,
        total: 3,
        formats: 3,
      },
    );
    const perAgent = new Map<string, number>();
    let filteredTotal = 0;
    for (const f of FORMATS) {
      const filtered = await get(app, readKey, `${base}/agents${DAY}&format=${f}&split=format`);
      assert.equal(filtered.totals.total, agents.totals.formats[f], f);
      assert.equal(filtered.totals.formats[f], filtered.totals.total);
      filteredTotal += filtered.totals.total;
      for (const row of filtered.agents) {
        assert.ok(row.total > 0);
        assert.equal(row.formats[f], row.total);
        perAgent.set(row.agent, (perAgent.get(row.agent) ?? 0) + row.total);
      }
    }
    assert.equal(filteredTotal, agents.totals.total);
    assert.deepEqual(
      [...perAgent].sort(),
      agents.agents.map((a: { agent: string; total: number }) => [a.agent, a.total]).sort(),
    );
    const markdownAgents = await get(app, readKey, `${base}/agents${DAY}&format=markdown`);
    assert.deepEqual(
      markdownAgents.agents.map((a: { agent: string; total: number }) => [a.agent, a.total]),
      [
        ['markdown-client', 2],
        ['GPTBot', 1],
      ],
    );
    const paged = await get(app, readKey, `${base}/agents${DAY}&format=markdown&limit=1&offset=1`);
    assert.deepEqual(
      { agents: paged.agents.map((a: { agent: string }) => a.agent), hasMore: paged.hasMore },
      { agents: ['GPTBot'], hasMore: false },
    );
    const firstPage = await get(app, readKey, `${base}/agents${DAY}&format=markdown&limit=1`);
    assert.equal(firstPage.hasMore, true);

    // /views keeps its meaning: every view, under its path (MCP calls under /mcp unless named).
    const views = await get(app, readKey, `${base}/views${DAY}`);
    assert.deepEqual(views.totals, { human: 5, ai: 9, total: 14 });
    assert.deepEqual(
      views.views.find((v: { path: string }) => v.path === '/mcp'),
      { path: '/mcp', human: 1, ai: 3, total: 4 },
    );

    // /mcp-tools: calls per tool, method and client.
    const tools = await get(app, readKey, `${base}/mcp-tools${DAY}`);
    assert.deepEqual(tools.totals, { calls: 5 });
    assert.deepEqual(tools.tools, [
      { tool: 'search', calls: 3 },
      { tool: '', calls: 1 },
      { tool: 'get_page', calls: 1 },
    ]);
    assert.deepEqual(tools.clients, [
      { clientName: 'claude-ai', calls: 2 },
      { clientName: 'cursor', calls: 2 },
      { clientName: 'inspector', calls: 1 },
    ]);
    assert.deepEqual(tools.calls, [
      { tool: '', method: 'tools/list', clientName: 'cursor', clientVersion: '1.7.2', calls: 1 },
      { tool: 'get_page', method: 'tools/call', clientName: 'claude-ai', clientVersion: '0.1.0', calls: 1 },
      { tool: 'search', method: 'tools/call', clientName: 'claude-ai', clientVersion: '0.1.0', calls: 1 },
      { tool: 'search', method: 'tools/call', clientName: 'cursor', clientVersion: '1.7.2', calls: 1 },
      { tool: 'search', method: 'tools/call', clientName: 'inspector', clientVersion: '', calls: 1 },
    ]);
    assert.equal(tools.hasMore, false);
    const toolPage = await get(app, readKey, `${base}/mcp-tools${DAY}&limit=2&offset=2`);
    assert.deepEqual(toolPage.calls, tools.calls.slice(2, 4));
    assert.equal(toolPage.hasMore, true);
    const csv = await app.inject({
      method: 'GET',
      url: `${base}/mcp-tools${DAY}&limit=2`,
      headers: { ...bearer(readKey), accept: 'text/csv' },
    });
    assert.equal(csv.statusCode, 200);
    assert.equal(
      csv.body,
      'tool,method,clientName,clientVersion,calls\r\n,tools/list,cursor,1.7.2,1\r\nget_page,tools/call,claude-ai,0.1.0,1\r\n',
    );
    assert.match(String(csv.headers.link), /offset=2/);
    // The hourly edge: only hour 10 holds calls.
    const edge = await get(
      app,
      readKey,
      `${base}/mcp-tools?dateFrom=2026-10-21T09:00Z&dateTo=2026-10-21T10:00Z`,
    );
    assert.deepEqual(edge.totals, { calls: 0 });

    // The agents CSV carries what was asked: the format filter's name, the split's columns; as
    // the JSON says. Without either, the columns are the ones they always were.
    const agentsCsv = async (query: string) => {
      const res = await app.inject({
        method: 'GET',
        url: `${base}/agents${DAY}${query}`,
        headers: { ...bearer(readKey), accept: 'text/csv' },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.body.split('\r\n').filter((line) => line !== '');
    };
    const plainCsv = await agentsCsv('');
    assert.equal(plainCsv[0], 'agent,operator,category,verified,unverified,total');
    const splitJson = await get(app, readKey, `${base}/agents${DAY}&format=markdown&split=format`);
    assert.ok(splitJson.agents.length > 0);
    const splitCsv = await agentsCsv('&format=markdown&split=format');
    assert.equal(
      splitCsv[0],
      'agent,operator,category,verified,unverified,total,format,html,markdown,llms,mcp',
    );
    assert.deepEqual(
      splitCsv.slice(1),
      splitJson.agents.map(
        (a: {
          agent: string;
          operator: string | null;
          category: string | null;
          verified: number;
          unverified: number;
          total: number;
          formats: Record<string, number>;
        }) =>
          [
            a.agent,
            a.operator ?? '',
            a.category ?? '',
            a.verified,
            a.unverified,
            a.total,
            'markdown',
            a.formats.html,
            a.formats.markdown,
            a.formats.llms,
            a.formats.mcp,
          ].join(','),
      ),
    );
    assert.ok(
      splitCsv.slice(1).some((line) => !line.endsWith(',0,0,0,0')),
      'some markdown views',
    );
    assert.equal(
      (await agentsCsv('&split=format'))[0],
      'agent,operator,category,verified,unverified,total,html,markdown,llms,mcp',
    );
    assert.equal(
      (await agentsCsv('&format=llms'))[0],
      'agent,operator,category,verified,unverified,total,format',
    );

    // A bad format filter is refused, naming the parameter.
    const bad = await app.inject({
      method: 'GET',
      url: `${base}/timeseries?format=pdf`,
      headers: bearer(readKey),
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_parameter');
    assert.match(bad.body, /format/);
    const badAgents = await app.inject({
      method: 'GET',
      url: `${base}/agents?format=MD`,
      headers: bearer(readKey),
    });
    assert.equal(badAgents.statusCode, 400);
    await app.close();
  });

  test('views counted before formats were kept are html; the merge of staged rows read back keeps formats', async () => {
    const app = await ingestTestApp(db());
    const { project, ingestKey, readKey } = await seedProject(db());
    // Views as an older version wrote them: rollups only.
    await db().query(
      `INSERT INTO page_views_hourly (project_id, hour, path, traffic_class, agent, verification, views)
       VALUES ($1, '2026-10-21T08:00:00Z', '/old', 'human', '', '', 3)`,
      [project.id],
    );
    await db().query(
      `INSERT INTO traffic_hourly (project_id, hour, human, ai, bot) VALUES ($1, '2026-10-21T08:00:00Z', 3, 0, 0)`,
      [project.id],
    );
    // Staged by "another process": only the staged row exists, read back and decoded by the merge.
    await db().query(
      `INSERT INTO page_views_staged (views, counts, referrals, formats) VALUES (1, $1, NULL, $2)`,
      [
        JSON.stringify([
          [project.id, Date.UTC(2026, 9, 21, 8) / 1000, 'ai', 'GPTBot', 'unverified', ['/a', 1]],
        ]),
        JSON.stringify({
          v: [[project.id, Date.UTC(2026, 9, 21, 8) / 1000, 'llms', 'ai', 'GPTBot', 'unverified', 1]],
          c: [],
        }),
      ],
    );
    const series = await get(
      app,
      readKey,
      `/v1/analytics/${project.id}/timeseries${DAY}&interval=hour&split=format`,
    );
    assert.deepEqual(series.formats.html, { human: 3, ai: 0, bot: 0, total: 3 });
    assert.deepEqual(series.formats.llms, { human: 0, ai: 1, bot: 0, total: 1 });
    const res = await postRecords(app, project.id, ingestKey, [
      { path: '/llms.txt', userAgent: GPTBOT, timestamp: at(8) },
    ]);
    assert.equal(res.statusCode, 202);
    const agents = await get(
      app,
      readKey,
      `/v1/analytics/${project.id}/agents${DAY}&format=llms&split=format`,
    );
    assert.deepEqual(agents.totals, {
      verified: 0,
      unverified: 2,
      total: 2,
      formats: { html: 0, markdown: 0, llms: 2, mcp: 0 },
    });
    await app.close();
  });

  test('bad records are rejected alone, naming the field; the good ones in the batch are counted', async () => {
    const app = await ingestTestApp(db());
    const { project, ingestKey, readKey } = await seedProject(db());
    const records: unknown[] = [
      { path: '/ok', userAgent: CHROME, timestamp: at(9) },
      { path: '/a', format: 'pdf' },
      { path: '/a', type: 'event' },
      { type: 'mcp', tool: 'bad\u0000tool' },
      { type: 'mcp', tool: 't'.repeat(129) },
      { type: 'mcp' },
      { type: 'mcp', method: 'tools call', tool: 'x' },
      { type: 'mcp', tool: 'a\u0007b' },
      { type: 'mcp', tool: { nested: { deeper: [1] } } },
      { type: 'mcp', tool: 'x', format: 'html' },
      { type: 'mcp', tool: 'x', clientName: 'c'.repeat(129) },
      { type: 'mcp', tool: 'x', clientVersion: 5 },
      { type: 'mcp', tool: 'fine', clientName: 'claude-ai', timestamp: at(9) },
    ];
    const res = await postRecords(app, project.id, ingestKey, records);
    assert.equal(res.statusCode, 202, res.body);
    const answer: IngestAnswer = res.json();
    assert.equal(answer.accepted, 2);
    const named = answer.rejected.map((r) => [r.index, r.code, /Field "([^"]+)"/.exec(r.message)?.[1]]);
    assert.deepEqual(named, [
      [1, 'invalid_field', 'format'],
      [2, 'invalid_field', 'type'],
      [3, 'invalid_field', 'tool'],
      [4, 'invalid_field', 'tool'],
      [5, 'invalid_field', 'tool'],
      [6, 'invalid_field', 'method'],
      [7, 'invalid_field', 'tool'],
      [8, 'invalid_field', 'tool'],
      [9, 'invalid_field', 'format'],
      [10, 'invalid_field', 'clientName'],
      [11, 'invalid_field', 'clientVersion'],
    ]);
    assert.match(answer.rejected[0]!.message, /html, markdown, llms, mcp/);
    // The message shows a long value cut short, never whole.
    assert.ok(answer.rejected[3]!.message.length < 300, answer.rejected[3]!.message);
    const tools = await get(app, readKey, `/v1/analytics/${project.id}/mcp-tools${DAY}`);
    assert.deepEqual(tools.tools, [{ tool: 'fine', calls: 1 }]);

    // A body nested too deep is refused whole (nothing counted); as NDJSON, only its line.
    let deep: unknown = 'x';
    for (let i = 0; i < 70; i++) deep = { d: deep };
    const whole = await postRecords(app, project.id, ingestKey, [
      { type: 'mcp', tool: 'x' },
      { type: 'mcp', tool: deep },
    ]);
    assert.equal(whole.statusCode, 400);
    assert.equal(whole.json().code, 'json_too_deep');
    const lines = [
      { type: 'mcp', tool: 'line' },
      { type: 'mcp', tool: deep },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const ndjson = await postNdjson(app, project.id, ingestKey, lines);
    assert.equal(ndjson.statusCode, 202);
    const ndAnswer: IngestAnswer = ndjson.json();
    assert.equal(ndAnswer.accepted, 1);
    assert.deepEqual(
      ndAnswer.rejected.map((r) => [r.index, r.code]),
      [[1, 'invalid_json']],
    );
    const after = await get(app, readKey, `/v1/analytics/${project.id}/mcp-tools`);
    assert.deepEqual(after.totals, { calls: 2 });
    await app.close();
  });

  describe('log import', () => {
    const dir = mkdtempSync(join(process.platform === 'linux' ? '/dev/shm' : tmpdir(), 'dw-formats-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    test('.md and llms.txt lines are counted as markdown and llms', async () => {
      const app = await ingestTestApp(db());
      const { project, readKey } = await seedProject(db());
      const hit = (target: string, ua: string) => ({
        ip: '203.0.113.9',
        at: Date.UTC(2026, 9, 21, 9, 30),
        method: 'GET',
        target,
        status: 200,
        ua,
        expect: { path: target, class: 'human' as const },
      });
      const path = join(dir, 'access.log');
      writeFileSync(
        path,
        logText(
          [
            hit('/guide.md', GPTBOT),
            hit('/guide.md', CHROME),
            hit('/llms.txt', GPTBOT),
            hit('/llms-full.txt', HTTP_LIBRARY),
            hit('/guide', CHROME),
          ],
          combinedLine,
        ),
      );
      const summary = await importSource(await openLogSource(path), {
        projectId: project.id,
        parse: lineParserFactory({})(),
        classification: createClassificationContext({ webBotAuth: false }),
        sink: databaseImportSink(db(), 'test'),
      });
      assert.equal(summary.accepted, 5);
      const series = await get(app, readKey, `/v1/analytics/${project.id}/timeseries${DAY}&split=format`);
      assert.deepEqual(series.formats, {
        html: { human: 1, ai: 0, bot: 0, total: 1 },
        markdown: { human: 1, ai: 1, bot: 0, total: 2 },
        llms: { human: 0, ai: 1, bot: 1, total: 1 },
        mcp: { human: 0, ai: 0, bot: 0, total: 0 },
      });
      const agents = await get(app, readKey, `/v1/analytics/${project.id}/agents${DAY}&format=llms`);
      assert.deepEqual(
        agents.agents.map((a: { agent: string; total: number }) => [a.agent, a.total]),
        [['GPTBot', 1]],
      );
      await app.close();
    });
  });
});
