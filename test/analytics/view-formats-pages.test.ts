// The format filter of /views (docs/analytics-formats.md, "Formats per page"), on both engines
// through the real app: the four filtered answers add up to the unfiltered one page by page, html
// is a page's views less its other formats, the filtered lists page like /views, the CSV carries
// a format column, a bad value is refused naming the parameter, rows staged by an older release
// (no paths in their formats) count as html per page, and log import keeps the pages' formats.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { databaseImportSink } from '../../src/modules/analytics/import/database-sink.ts';
import { lineParserFactory } from '../../src/modules/analytics/import/formats.ts';
import { importSource } from '../../src/modules/analytics/import/importer.ts';
import { openLogSource } from '../../src/modules/analytics/import/source.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { CHROME, combinedLine, GOOGLEBOT, GPTBOT, logText } from './import-fixtures.ts';
import { ingestTestApp, postRecords } from './ingest-helpers.ts';

const FORMATS = ['html', 'markdown', 'llms', 'mcp'] as const;
type Row = { path: string; human: number; ai: number; total: number };

const EDGE_BEFORE = '2026-10-20T23:10:00Z';
const INSIDE = '2026-10-21T09:05:00Z';
const EDGE_AFTER = '2026-10-22T01:05:00Z';
/** Hours at both edges and a whole day between: the hourly and the daily level are both read. */
const RANGE = '?dateFrom=2026-10-20T23:00Z&dateTo=2026-10-22T02:00Z';

function records(): object[] {
  return [
    { path: '/guide', userAgent: CHROME, timestamp: EDGE_BEFORE },
    { path: '/guide', userAgent: CHROME, timestamp: INSIDE },
    { path: '/guide', userAgent: CHROME, timestamp: EDGE_AFTER },
    { path: '/guide', userAgent: GOOGLEBOT, timestamp: INSIDE }, // bot: in no page count
    { path: '/guide.md', userAgent: CHROME, timestamp: EDGE_BEFORE }, // human markdown, /guide
    { path: '/guide.md', userAgent: GPTBOT, timestamp: INSIDE }, // ai markdown, /guide
    { path: '/api.md', userAgent: GPTBOT, timestamp: INSIDE },
    { path: '/api.md', userAgent: GPTBOT, timestamp: EDGE_AFTER },
    { path: '/api', userAgent: CHROME, timestamp: INSIDE },
    { path: '/llms.txt', userAgent: GPTBOT, timestamp: EDGE_BEFORE },
    { path: '/llms.txt', userAgent: GPTBOT, timestamp: INSIDE },
    { path: '/llms.txt', userAgent: GPTBOT, timestamp: EDGE_AFTER },
    { path: '/llms.txt', userAgent: GOOGLEBOT, timestamp: INSIDE }, // bot llms
    { type: 'mcp', tool: 'search', userAgent: CHROME, timestamp: INSIDE }, // human mcp, /mcp
    { type: 'mcp', tool: 'search', timestamp: EDGE_AFTER }, // ai mcp, /mcp
  ];
}

await forEachBackend('/views format filter', ({ db }) => {
  const get = async (app: Awaited<ReturnType<typeof ingestTestApp>>, key: string, url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: bearer(key) });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };

  test('the four filtered answers add up to the unfiltered one, page by page; html is the rest', async () => {
    const app = await ingestTestApp(db());
    const { project, ingestKey, readKey } = await seedProject(db());
    const base = `/v1/analytics/${project.id}/views`;
    const posted = await postRecords(app, project.id, ingestKey, records());
    assert.equal(posted.statusCode, 202, posted.body);
    assert.equal(posted.json().accepted, 15);

    const all = await get(app, readKey, `${base}${RANGE}&limit=250`);
    assert.deepEqual(all.views, [
      { path: '/guide', human: 4, ai: 1, total: 5 },
      { path: '/api', human: 1, ai: 2, total: 3 },
      { path: '/llms.txt', human: 0, ai: 3, total: 3 },
      { path: '/mcp', human: 1, ai: 1, total: 2 },
    ]);
    const byFormat = Object.fromEntries(
      await Promise.all(
        FORMATS.map(
          async (f) => [f, await get(app, readKey, `${base}${RANGE}&limit=250&format=${f}`)] as const,
        ),
      ),
    );
    assert.deepEqual(byFormat.html.views, [
      { path: '/guide', human: 3, ai: 0, total: 3 },
      { path: '/api', human: 1, ai: 0, total: 1 },
    ]);
    // A tie on total goes to the path in byte order, as in /views.
    assert.deepEqual(byFormat.markdown.views, [
      { path: '/api', human: 0, ai: 2, total: 2 },
      { path: '/guide', human: 1, ai: 1, total: 2 },
    ]);
    assert.deepEqual(byFormat.llms.views, [{ path: '/llms.txt', human: 0, ai: 3, total: 3 }]);
    assert.deepEqual(byFormat.mcp.views, [{ path: '/mcp', human: 1, ai: 1, total: 2 }]);

    // Page by page and in the totals, the four formats add up to every view.
    const perPage = new Map<string, Row>();
    const totals = { human: 0, ai: 0, total: 0 };
    for (const f of FORMATS) {
      const answer = byFormat[f];
      assert.equal(answer.hasMore, false);
      assert.deepEqual(answer.range, all.range);
      for (const c of ['human', 'ai', 'total'] as const) totals[c] += answer.totals[c];
      const sum = { human: 0, ai: 0, total: 0 };
      for (const row of answer.views as Row[]) {
        assert.ok(row.total > 0, `${f} ${row.path}`);
        for (const c of ['human', 'ai', 'total'] as const) sum[c] += row[c];
        const seen = perPage.get(row.path) ?? { path: row.path, human: 0, ai: 0, total: 0 };
        for (const c of ['human', 'ai', 'total'] as const) seen[c] += row[c];
        perPage.set(row.path, seen);
      }
      assert.deepEqual(answer.totals, sum, `${f}: the totals are the rows' sum`);
    }
    assert.deepEqual(totals, all.totals);
    assert.deepEqual(
      [...perPage.values()].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1)),
      all.views,
    );

    // Only the whole day: the daily level alone.
    const day = await get(app, readKey, `${base}?dateFrom=2026-10-21&dateTo=2026-10-22&format=markdown`);
    assert.deepEqual(day.views, [
      { path: '/api', human: 0, ai: 1, total: 1 },
      { path: '/guide', human: 0, ai: 1, total: 1 },
    ]);
    assert.deepEqual(day.totals, { human: 0, ai: 2, total: 2 });
    const edge = await get(
      app,
      readKey,
      `${base}?dateFrom=2026-10-22T01:00Z&dateTo=2026-10-22T02:00Z&format=html`,
    );
    assert.deepEqual(edge.views, [{ path: '/guide', human: 1, ai: 0, total: 1 }]);

    // Paging: the same order and hasMore rules as /views.
    const first = await get(app, readKey, `${base}${RANGE}&format=markdown&limit=1`);
    assert.deepEqual(
      { views: first.views, hasMore: first.hasMore, totals: first.totals },
      { views: [byFormat.markdown.views[0]], hasMore: true, totals: byFormat.markdown.totals },
    );
    const second = await get(app, readKey, `${base}${RANGE}&format=markdown&limit=1&offset=1`);
    assert.deepEqual(
      { views: second.views, hasMore: second.hasMore },
      { views: [byFormat.markdown.views[1]], hasMore: false },
    );
    const beyond = await get(app, readKey, `${base}${RANGE}&format=markdown&offset=5`);
    assert.deepEqual({ views: beyond.views, hasMore: beyond.hasMore }, { views: [], hasMore: false });

    // CSV: a format column with the filter, the usual columns without it.
    const csv = async (query: string) => {
      const res = await app.inject({
        method: 'GET',
        url: `${base}${RANGE}${query}`,
        headers: { ...bearer(readKey), accept: 'text/csv' },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };
    const filteredCsv = await csv('&format=markdown&limit=1');
    assert.equal(filteredCsv.body, 'path,human,ai,total,format\r\n/api,0,2,2,markdown\r\n');
    assert.match(String(filteredCsv.headers.link), /format=markdown/);
    assert.match(String(filteredCsv.headers.link), /offset=1/);
    assert.equal(
      (await csv('&limit=1')).body,
      'path,human,ai,total\r\n/guide,4,1,5\r\n',
      'without format, the columns they always were',
    );

    // A bad value is refused, naming the parameter.
    for (const bad of ['pdf', 'HTML', '']) {
      const res = await app.inject({ method: 'GET', url: `${base}?format=${bad}`, headers: bearer(readKey) });
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().code, 'invalid_parameter');
      assert.match(res.json().error, /format/);
      assert.equal(res.json().details?.[0]?.name, 'format');
    }
    await app.close();
  });

  test('non-html views staged by an older release count as html per page; staged pages are merged', async () => {
    const app = await ingestTestApp(db());
    const { project, readKey } = await seedProject(db());
    const hour = Date.UTC(2026, 9, 21, 8) / 1000;
    // Staged by "another process" and read back by the merge: an older release's row (formats
    // without pages), and this release's (with them).
    await db().query(
      `INSERT INTO page_views_staged (views, counts, referrals, formats) VALUES (1, $1, NULL, $2), (2, $3, NULL, $4)`,
      [
        JSON.stringify([[project.id, hour, 'ai', 'GPTBot', 'unverified', ['/old', 1]]]),
        JSON.stringify({ v: [[project.id, hour, 'llms', 'ai', 'GPTBot', 'unverified', 1]], c: [] }),
        JSON.stringify([[project.id, hour, 'human', '', '', ['/new', 2]]]),
        JSON.stringify({
          v: [[project.id, hour, 'markdown', 'human', '', '', 2]],
          c: [],
          p: [[project.id, hour, 'markdown', '/new', 'human', 2]],
        }),
      ],
    );
    const base = `/v1/analytics/${project.id}/views?dateFrom=2026-10-21&dateTo=2026-10-22`;
    const html = await get(app, readKey, `${base}&format=html`);
    assert.deepEqual(html.views, [{ path: '/old', human: 0, ai: 1, total: 1 }]);
    assert.deepEqual(html.totals, { human: 0, ai: 1, total: 1 });
    assert.deepEqual((await get(app, readKey, `${base}&format=llms`)).views, []);
    const markdown = await get(app, readKey, `${base}&format=markdown`);
    assert.deepEqual(markdown.views, [{ path: '/new', human: 2, ai: 0, total: 2 }]);
    assert.deepEqual(markdown.totals, { human: 2, ai: 0, total: 2 });
    await app.close();
  });

  describe('log import', () => {
    const dir = mkdtempSync(join(process.platform === 'linux' ? '/dev/shm' : tmpdir(), 'dw-format-pages-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    test('imported .md and llms.txt lines are listed under their pages and formats', async () => {
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
      assert.equal(summary.accepted, 4);
      const base = `/v1/analytics/${project.id}/views?dateFrom=2026-10-21&dateTo=2026-10-22`;
      assert.deepEqual((await get(app, readKey, `${base}&format=markdown`)).views, [
        { path: '/guide', human: 1, ai: 1, total: 2 },
      ]);
      assert.deepEqual((await get(app, readKey, `${base}&format=llms`)).views, [
        { path: '/llms.txt', human: 0, ai: 1, total: 1 },
      ]);
      assert.deepEqual((await get(app, readKey, `${base}&format=html`)).views, [
        { path: '/guide', human: 1, ai: 0, total: 1 },
      ]);
      await app.close();
    });
  });
});
