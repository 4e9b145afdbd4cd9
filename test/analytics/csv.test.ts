// CSV exports: RFC 4180 cells and the formula guard (unit), Accept negotiation (unit), and over
// HTTP on /views and /agents: the same page as JSON, read back with an independent RFC 4180
// parser, a Link header to the next page, and a walk over Link headers that visits every row.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { csvCell, toCsv } from '../../src/contract/index.ts';
import type { App } from '../../src/http/context.ts';
import { exportFormat } from '../../src/modules/analytics/negotiate.ts';
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

/** RFC 4180, written from the RFC's grammar for this test: records of fields, CRLF line ends. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      assert.ok(c !== '\n' && c !== '\r' && c !== '"', `bare ${JSON.stringify(c)} outside quotes at ${i}`);
      field += c;
      i++;
    }
  }
  assert.equal(field, '', 'the last record ends in CRLF');
  assert.equal(record.length, 0, 'the last record ends in CRLF');
  return records;
}

test('csvCell: quotes only when needed, doubles quotes, guards formulas, writes numbers and null', () => {
  assert.equal(csvCell('/docs/intro'), '/docs/intro');
  assert.equal(csvCell('/a,b'), '"/a,b"');
  assert.equal(csvCell('/say "hi"'), '"/say ""hi"""');
  assert.equal(csvCell('/two\r\nlines'), '"/two\r\nlines"');
  assert.equal(csvCell('/lf\nonly'), '"/lf\nonly"');
  for (const start of ['=', '+', '-', '@', '\t', '\r']) {
    const cell = csvCell(`${start}SUM(A1)`);
    assert.ok(cell === `'${start}SUM(A1)` || cell === `"'${start}SUM(A1)"`, JSON.stringify(cell));
  }
  assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
  assert.equal(csvCell('a=b'), 'a=b', 'only the first character matters');
  assert.equal(csvCell(42), '42');
  assert.equal(csvCell(0), '0');
  assert.equal(csvCell(null), '');
  assert.equal(
    toCsv(
      ['a', 'b'],
      [
        ['x', 1],
        [null, 'y,z'],
      ],
    ),
    'a,b\r\nx,1\r\n,"y,z"\r\n',
  );
  assert.equal(toCsv(['a'], []), 'a\r\n', 'the header row even without rows');
});

test('exportFormat: CSV only when text/csv outweighs JSON', () => {
  const cases: [string | undefined, 'csv' | 'json'][] = [
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['text/csv', 'csv'],
    ['TEXT/CSV', 'csv'],
    ['text/csv; charset=utf-8', 'csv'],
    ['text/csv, */*;q=0.1', 'csv'],
    ['application/json, text/csv', 'json'],
    ['text/csv, application/json', 'json'],
    ['application/json;q=0.5, text/csv', 'csv'],
    ['text/csv;q=0.5, application/json', 'json'],
    ['text/csv;q=0', 'json'],
    ['text/*', 'csv'],
    ['text/*, application/*', 'json'],
    ['text/html', 'json'],
    ['text/csv;q=bogus', 'json'],
    ['garbage', 'json'],
  ];
  for (const [accept, format] of cases) assert.equal(exportFormat(accept), format, String(accept));
});

await forEachBackend('CSV exports', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  const PATHS = [
    '/plain',
    '/a,b',
    '/say "hi"',
    '/=cmd|calc',
    '/-minus',
    '/+plus',
    '/@at',
    '/é/ü',
    '/two\nlines',
  ];
  before(async () => {
    app = await createTestApp(db());
    seeded = await seedProject(db());
    const rows: PageViewCount[] = [];
    PATHS.forEach((path, i) => {
      rows.push({
        projectId: seeded.project.id,
        hour: new Date('2025-02-01T10:00:00Z'),
        path,
        trafficClass: 'human',
        views: 20 - i,
      });
      rows.push({
        projectId: seeded.project.id,
        hour: new Date('2025-02-01T10:00:00Z'),
        path,
        trafficClass: 'ai',
        agent: i % 2 ? 'GPTBot' : '=EVIL()',
        verification: i % 3 ? 'verified' : 'unverified',
        views: i,
      });
    });
    await recordPageViews(db(), rows);
  });
  after(() => app.close());

  const get = (url: string, accept?: string) =>
    app.inject({ method: 'GET', url, headers: { ...bearer(seeded.readKey), ...(accept ? { accept } : {}) } });
  const unguard = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

  describe('/views', () => {
    test('text/csv: the same page as JSON, header row first, cells guarded and quoted', async () => {
      const url = `/v1/analytics/${seeded.project.id}/views?limit=250`;
      const json = (await get(url)).json();
      const res = await get(url, 'text/csv');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
      assert.equal(res.headers['content-disposition'], 'attachment; filename="views.csv"');
      assert.equal(res.headers.vary, 'Accept');
      assert.equal(res.headers.link, undefined, 'no next page');
      const [header, ...records] = parseCsv(res.body);
      assert.deepEqual(header, ['path', 'human', 'ai', 'total']);
      assert.deepEqual(
        records.map(([path, human, ai, total]) => ({
          path: unguard(path!),
          human: Number(human),
          ai: Number(ai),
          total: Number(total),
        })),
        json.views,
      );
      const byPath = new Map(records.map((r) => [unguard(r[0]!), r[0]]));
      assert.equal(byPath.get('/=cmd|calc'), '/=cmd|calc', 'a "/" first is not a formula');
      assert.equal(byPath.get('/a,b'), '/a,b');
      assert.equal(byPath.get('/two\nlines'), '/two\nlines');
    });

    test('paging: Link rel="next" keeps every other parameter; following it visits every row once', async () => {
      const first = await get(
        `/v1/analytics/${seeded.project.id}/views?dateFrom=2025-02-01&limit=4`,
        'text/csv',
      );
      assert.equal(
        first.headers.link,
        `</v1/analytics/${seeded.project.id}/views?dateFrom=2025-02-01&limit=4&offset=4>; rel="next"`,
      );
      const all = (await get(`/v1/analytics/${seeded.project.id}/views?limit=250`))
        .json()
        .views.map((v: { path: string }) => v.path);
      const walked: string[] = [];
      let url: string | null = `/v1/analytics/${seeded.project.id}/views?limit=4`;
      let pages = 0;
      while (url !== null) {
        const res = await get(url, 'text/csv');
        pages++;
        const [header, ...records] = parseCsv(res.body);
        assert.deepEqual(header, ['path', 'human', 'ai', 'total'], 'every page has the header row');
        walked.push(...records.map((r) => unguard(r[0]!)));
        const link = res.headers.link as string | undefined;
        url = link === undefined ? null : /^<([^>]+)>; rel="next"$/.exec(link)![1]!;
      }
      assert.equal(pages, Math.ceil(PATHS.length / 4));
      assert.deepEqual(walked, all);
    });

    test('an offset past the end: the header row alone; JSON stays the default', async () => {
      const res = await get(`/v1/analytics/${seeded.project.id}/views?offset=100`, 'text/csv');
      assert.equal(res.body, 'path,human,ai,total\r\n');
      const json = await get(`/v1/analytics/${seeded.project.id}/views`, '*/*');
      assert.match(json.headers['content-type'] as string, /^application\/json/);
      assert.equal(json.headers.vary, 'Accept');
    });

    test('errors stay JSON whatever Accept says', async () => {
      const res = await get(`/v1/analytics/${seeded.project.id}/views?limit=0`, 'text/csv');
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'invalid_parameter');
    });
  });

  test('/agents as CSV: operator and category, empty cells for unknown ones, agent names guarded', async () => {
    const url = `/v1/analytics/${seeded.project.id}/agents`;
    const json = (await get(url)).json();
    const res = await get(url, 'text/csv;q=0.9, application/json;q=0.5');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="agents.csv"');
    const [header, ...records] = parseCsv(res.body);
    assert.deepEqual(header, ['agent', 'operator', 'category', 'verified', 'unverified', 'total']);
    assert.deepEqual(
      records.map(([agent, operator, category, verified, unverified, total]) => ({
        agent: unguard(agent!),
        operator: operator === '' ? null : operator,
        category: category === '' ? null : category,
        verified: Number(verified),
        unverified: Number(unverified),
        total: Number(total),
      })),
      json.agents,
    );
    assert.ok(
      records.some((r) => r[0] === "'=EVIL()"),
      'a formula-like agent name gets the apostrophe',
    );
  });
});
