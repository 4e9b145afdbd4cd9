// GET /v1/analytics/{projectId}/views over real rollups, seeded through recordPageViews (the
// module's own write function). Each test uses its own project, so their counts never mix.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

type Seeded = Awaited<ReturnType<typeof seedProject>>;
interface PathViews {
  path: string;
  human: number;
  ai: number;
  total: number;
}
interface Report {
  totals: { human: number; ai: number; total: number };
  views: PathViews[];
  hasMore: boolean;
  range: { from: string | null; to: string | null };
}

const at = (iso: string) => new Date(iso);
/** Byte order of ASCII and BMP paths, as the export promises ("path ascending"). */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

await forEachBackend('page-view export', ({ db }) => {
  let app: App;
  before(async () => {
    app = await createTestApp(db());
  });
  after(() => app.close());

  async function views(seeded: Seeded, query = '', key = seeded.readKey) {
    return app.inject({
      method: 'GET',
      url: `/v1/analytics/${seeded.project.id}/views${query}`,
      headers: bearer(key),
    });
  }
  async function report(seeded: Seeded, query = ''): Promise<Report> {
    const res = await views(seeded, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  const rows = (seeded: Seeded, list: Omit<PageViewCount, 'projectId'>[]): PageViewCount[] =>
    list.map((r) => ({ ...r, projectId: seeded.project.id }));

  describe('the report', () => {
    let seeded: Seeded;
    before(async () => {
      seeded = await seedProject(db());
      await recordPageViews(
        db(),
        rows(seeded, [
          { hour: at('2025-05-01T09:15:00Z'), path: '/guide', trafficClass: 'human', views: 7 },
          {
            hour: at('2025-05-01T09:00:00Z'),
            path: '/guide',
            trafficClass: 'ai',
            agent: 'GPTBot',
            verification: 'ip',
            views: 3,
          },
          { hour: at('2025-05-02T10:00:00Z'), path: '/api', trafficClass: 'human', views: 2 },
        ]),
      );
    });

    test('200 with the contract fields and range, field by field', async () => {
      const res = await views(seeded);
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^application\/json/);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['hasMore', 'range', 'totals', 'views']);
      assert.deepEqual(body.totals, { human: 9, ai: 3, total: 12 });
      assert.equal(body.views.length, 2);
      assert.deepEqual(body.views[0], { path: '/guide', human: 7, ai: 3, total: 10 });
      assert.deepEqual(body.views[1], { path: '/api', human: 2, ai: 0, total: 2 });
      for (const row of body.views) {
        assert.deepEqual(Object.keys(row).sort(), ['ai', 'human', 'path', 'total']);
        for (const field of ['human', 'ai', 'total']) assert.ok(Number.isInteger(row[field]), field);
      }
      assert.equal(body.hasMore, false);
      assert.deepEqual(body.range, { from: null, to: null });
    });

    test('read and admin keys may export; an ingest key may not; nor another project', async () => {
      assert.equal((await views(seeded, '', seeded.readKey)).statusCode, 200);
      assert.equal((await views(seeded, '', seeded.adminKey)).statusCode, 200);
      const ingest = await views(seeded, '', seeded.ingestKey);
      assert.equal(ingest.statusCode, 403);
      assert.equal(ingest.json().code, 'insufficient_scope');
      const other = await seedProject(db());
      const foreign = await views(seeded, '', other.readKey);
      assert.equal(foreign.statusCode, 403);
      assert.equal(foreign.json().code, 'project_forbidden');
      const none = await app.inject({ method: 'GET', url: `/v1/analytics/${seeded.project.id}/views` });
      assert.equal(none.statusCode, 401);
    });

    test('a project without views answers zeros and an empty list', async () => {
      const empty = await seedProject(db());
      assert.deepEqual(await report(empty), {
        totals: { human: 0, ai: 0, total: 0 },
        views: [],
        hasMore: false,
        range: { from: null, to: null },
      });
    });

    test("another project's views are never counted", async () => {
      const other = await seedProject(db());
      await recordPageViews(
        db(),
        rows(other, [
          { hour: at('2025-05-01T09:00:00Z'), path: '/guide', trafficClass: 'human', views: 1000 },
        ]),
      );
      assert.deepEqual((await report(seeded)).totals, { human: 9, ai: 3, total: 12 });
    });
  });

  test('non-AI bots are stored but counted in neither human nor ai', async () => {
    const seeded = await seedProject(db());
    await recordPageViews(
      db(),
      rows(seeded, [
        { hour: at('2025-05-01T09:00:00Z'), path: '/p', trafficClass: 'human', views: 2 },
        { hour: at('2025-05-01T09:00:00Z'), path: '/p', trafficClass: 'ai', agent: 'ClaudeBot', views: 3 },
        {
          hour: at('2025-05-01T09:00:00Z'),
          path: '/p',
          trafficClass: 'bot',
          agent: 'Googlebot',
          views: 1000,
        },
        {
          hour: at('2025-05-01T10:00:00Z'),
          path: '/bots-only',
          trafficClass: 'bot',
          agent: 'Bingbot',
          views: 50,
        },
      ]),
    );
    const body = await report(seeded);
    assert.deepEqual(body.totals, { human: 2, ai: 3, total: 5 });
    assert.deepEqual(body.views, [{ path: '/p', human: 2, ai: 3, total: 5 }]);
    const stored = await db().query<{ views: number }>(
      "SELECT sum(views)::bigint AS views FROM page_views_hourly WHERE project_id = $1 AND traffic_class = 'bot'",
      [seeded.project.id],
    );
    assert.equal(stored[0]!.views, 1050, 'the bot views are kept');
  });

  test('ordering: total descending, then path ascending in byte order on ties', async () => {
    const seeded = await seedProject(db());
    const hour = at('2025-05-01T09:00:00Z');
    await recordPageViews(
      db(),
      rows(seeded, [
        { hour, path: '/top', trafficClass: 'human', views: 5 },
        // Eight paths tied at 3, reached by different mixes of human and AI views.
        { hour, path: '/a', trafficClass: 'human', views: 3 },
        { hour, path: '/B', trafficClass: 'ai', agent: 'GPTBot', views: 3 },
        { hour, path: '/_', trafficClass: 'human', views: 1 },
        { hour, path: '/_', trafficClass: 'ai', agent: 'GPTBot', views: 2 },
        { hour, path: '/a/b', trafficClass: 'human', views: 2 },
        { hour: at('2025-05-02T09:00:00Z'), path: '/a/b', trafficClass: 'human', views: 1 },
        { hour, path: '/A', trafficClass: 'ai', agent: 'PerplexityBot', views: 3 },
        { hour, path: '/é', trafficClass: 'human', views: 3 },
        { hour, path: '/a-b', trafficClass: 'human', views: 3 },
        { hour, path: '/Z', trafficClass: 'human', views: 3 },
        { hour, path: '/last', trafficClass: 'ai', agent: 'GPTBot', views: 1 },
      ]),
    );
    const body = await report(seeded);
    const tied = ['/a', '/B', '/_', '/a/b', '/A', '/é', '/a-b', '/Z'].sort(byteOrder);
    assert.deepEqual(
      tied,
      ['/A', '/B', '/Z', '/_', '/a', '/a-b', '/a/b', '/é'],
      'byte order, not locale order',
    );
    assert.deepEqual(
      body.views.map((v) => v.path),
      ['/top', ...tied, '/last'],
    );
    assert.deepEqual(
      body.views.find((v) => v.path === '/_'),
      { path: '/_', human: 1, ai: 2, total: 3 },
    );
    // The same order page by page: ties never swap between requests.
    const paged: string[] = [];
    for (let offset = 0; ; offset += 3) {
      const page = await report(seeded, `?limit=3&offset=${offset}`);
      paged.push(...page.views.map((v) => v.path));
      if (!page.hasMore) break;
    }
    assert.deepEqual(paged, ['/top', ...tied, '/last']);
  });

  describe('paging over 1,000 paths', () => {
    let seeded: Seeded;
    let expected: PathViews[];
    let expectedTotals: Report['totals'];
    before(async () => {
      seeded = await seedProject(db());
      const list: Omit<PageViewCount, 'projectId'>[] = [];
      expected = [];
      for (let i = 0; i < 1000; i++) {
        const path = `/docs/page-${String(i).padStart(4, '0')}`;
        // Totals from 1 to 20 only: 50 paths share each total, so the order leans on the tie-break.
        const human = (i * 7) % 13;
        const ai = ((i * 3) % 8) + (human === 0 ? 1 : 0);
        // Split each count over two hours and two rows, so the export has to sum them.
        if (human > 0) {
          list.push({ hour: at('2025-06-01T08:00:00Z'), path, trafficClass: 'human', views: 1 });
          if (human > 1)
            list.push({ hour: at('2025-06-02T17:00:00Z'), path, trafficClass: 'human', views: human - 1 });
        }
        if (ai > 0)
          list.push({
            hour: at('2025-06-01T08:00:00Z'),
            path,
            trafficClass: 'ai',
            agent: 'GPTBot',
            views: ai,
          });
        list.push({
          hour: at('2025-06-01T08:00:00Z'),
          path,
          trafficClass: 'bot',
          agent: 'Googlebot',
          views: 9,
        });
        expected.push({ path, human, ai, total: human + ai });
      }
      await recordPageViews(db(), rows(seeded, list));
      expected.sort((a, b) => b.total - a.total || byteOrder(a.path, b.path));
      const human = expected.reduce((s, v) => s + v.human, 0);
      const ai = expected.reduce((s, v) => s + v.ai, 0);
      expectedTotals = { human, ai, total: human + ai };
    });

    test('walking offset += limit while hasMore visits every path exactly once, in order', async () => {
      const limit = 7;
      const seen: PathViews[] = [];
      let pages = 0;
      for (let offset = 0; ; offset += limit) {
        const page = await report(seeded, `?limit=${limit}&offset=${offset}`);
        pages++;
        assert.deepEqual(page.totals, expectedTotals, 'totals cover every path, whatever the page');
        assert.equal(page.hasMore, offset + limit < 1000, `hasMore at offset ${offset}`);
        assert.equal(page.views.length, Math.min(limit, 1000 - offset));
        seen.push(...page.views);
        if (!page.hasMore) break;
      }
      assert.equal(pages, Math.ceil(1000 / limit));
      assert.equal(new Set(seen.map((v) => v.path)).size, 1000, 'no path twice');
      assert.deepEqual(seen, expected);
    });

    test('a last page that is exactly full says hasMore false', async () => {
      const page = await report(seeded, '?limit=10&offset=990');
      assert.equal(page.views.length, 10);
      assert.equal(page.hasMore, false);
      assert.deepEqual(page.views, expected.slice(990));
      const before = await report(seeded, '?limit=10&offset=989');
      assert.equal(before.hasMore, true);
    });

    test('an offset past the end gives no views, hasMore false and the full totals', async () => {
      for (const offset of [1000, 1001, 5000]) {
        const page = await report(seeded, `?limit=50&offset=${offset}`);
        assert.deepEqual(page.views, []);
        assert.equal(page.hasMore, false);
        assert.deepEqual(page.totals, expectedTotals);
      }
    });

    test('limit defaults to 50 and offset to 0; limit 250 is allowed', async () => {
      const page = await report(seeded);
      assert.deepEqual(page.views, expected.slice(0, 50));
      assert.equal(page.hasMore, true);
      const big = await report(seeded, '?limit=250&offset=750');
      assert.deepEqual(big.views, expected.slice(750));
      assert.equal(big.hasMore, false);
    });
  });

  describe('date range', () => {
    let seeded: Seeded;
    // One path, a power of ten per hour: the total says exactly which hours were counted.
    const HOURS: [string, number][] = [
      ['2025-03-09T23:00:00Z', 1],
      ['2025-03-10T00:00:00Z', 10],
      ['2025-03-10T13:00:00Z', 100],
      ['2025-03-10T14:00:00Z', 1000],
      ['2025-03-10T15:00:00Z', 10000],
    ];
    before(async () => {
      seeded = await seedProject(db());
      await recordPageViews(
        db(),
        rows(
          seeded,
          HOURS.map(([hour, views]) => ({ hour: at(hour), path: '/p', trafficClass: 'human', views })),
        ),
      );
    });
    const counted = async (query: string) => {
      const body = await report(seeded, query);
      assert.equal(body.views[0]?.total ?? 0, body.totals.total, 'one path: its total is the total');
      return { total: body.totals.total, range: body.range };
    };
    const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;

    test('both bounds omitted: everything, range unbounded', async () => {
      assert.deepEqual(await counted(''), { total: 11111, range: { from: null, to: null } });
    });

    test('dateTo is exclusive on a day boundary', async () => {
      assert.deepEqual(await counted(q({ dateTo: '2025-03-10' })), {
        total: 1,
        range: { from: null, to: '2025-03-10T00:00:00.000Z' },
      });
      assert.deepEqual(await counted(q({ dateFrom: '2025-03-09', dateTo: '2025-03-10' })), {
        total: 1,
        range: { from: '2025-03-09T00:00:00.000Z', to: '2025-03-10T00:00:00.000Z' },
      });
    });

    test('dateFrom is inclusive on a day boundary; dateTo omitted is unbounded', async () => {
      assert.deepEqual(await counted(q({ dateFrom: '2025-03-10' })), {
        total: 11110,
        range: { from: '2025-03-10T00:00:00.000Z', to: null },
      });
    });

    test('dateTo is exclusive and dateFrom inclusive on an hour boundary', async () => {
      assert.deepEqual(
        await counted(q({ dateFrom: '2025-03-10T14:00:00Z', dateTo: '2025-03-10T15:00:00Z' })),
        {
          total: 1000,
          range: { from: '2025-03-10T14:00:00.000Z', to: '2025-03-10T15:00:00.000Z' },
        },
      );
      assert.equal((await counted(q({ dateTo: '2025-03-10T14:00:00Z' }))).total, 111);
      assert.equal((await counted(q({ dateFrom: '2025-03-10T15:00:00Z' }))).total, 10000);
    });

    test('+02:00 is converted to UTC, sent encoded or as a raw "+"', async () => {
      const expected = {
        total: 1000,
        range: { from: '2025-03-10T14:00:00.000Z', to: '2025-03-10T15:00:00.000Z' },
      };
      // URLSearchParams encodes "+" as %2B ...
      assert.deepEqual(
        await counted(q({ dateFrom: '2025-03-10T16:00:00+02:00', dateTo: '2025-03-10T17:00:00+02:00' })),
        expected,
      );
      // ... a hand-written URL often does not, and the "+" arrives as a space.
      assert.deepEqual(
        await counted('?dateFrom=2025-03-10T16:00:00+02:00&dateTo=2025-03-10T17:00:00+02:00'),
        expected,
      );
    });

    test('-05:30 lands inside UTC hours: the range widens outward to whole hours', async () => {
      // 08:00-05:30 is 13:30Z and 09:00-05:30 is 14:30Z: the hours 13:00 and 14:00 are counted.
      assert.deepEqual(
        await counted(q({ dateFrom: '2025-03-10T08:00:00-05:30', dateTo: '2025-03-10T09:00:00-05:30' })),
        {
          total: 1100,
          range: { from: '2025-03-10T13:00:00.000Z', to: '2025-03-10T15:00:00.000Z' },
        },
      );
    });

    test('bounds inside an hour: dateFrom rounds down, dateTo rounds up', async () => {
      assert.deepEqual(await counted(q({ dateTo: '2025-03-10T14:00:00.001Z' })), {
        total: 1111,
        range: { from: null, to: '2025-03-10T15:00:00.000Z' },
      });
      assert.deepEqual(await counted(q({ dateFrom: '2025-03-10T14:59:59Z' })), {
        total: 11000,
        range: { from: '2025-03-10T14:00:00.000Z', to: null },
      });
      assert.deepEqual(
        await counted(q({ dateFrom: '2025-03-10T14:10:00Z', dateTo: '2025-03-10T14:20:00Z' })),
        {
          total: 1000,
          range: { from: '2025-03-10T14:00:00.000Z', to: '2025-03-10T15:00:00.000Z' },
        },
      );
    });

    test('a date-time without an offset is read as UTC', async () => {
      assert.equal(
        (await counted(q({ dateFrom: '2025-03-10T14:00:00', dateTo: '2025-03-10T15:00' }))).total,
        1000,
      );
    });

    test('a range with no views counts zero, not an error', async () => {
      assert.deepEqual(await counted(q({ dateFrom: '2030-01-01', dateTo: '2030-01-02' })), {
        total: 0,
        range: { from: '2030-01-01T00:00:00.000Z', to: '2030-01-02T00:00:00.000Z' },
      });
    });

    test('the widest range accepted, 0001-01-01 to 9999-12-31, counts everything', async () => {
      assert.deepEqual(await counted(q({ dateFrom: '0001-01-01', dateTo: '9999-12-31' })), {
        total: 11111,
        range: { from: '0001-01-01T00:00:00.000Z', to: '9999-12-31T00:00:00.000Z' },
      });
    });

    test('dateFrom not before dateTo → 400 invalid_date_range, compared before widening', async () => {
      for (const params of [
        { dateFrom: '2025-03-10', dateTo: '2025-03-10' },
        { dateFrom: '2025-03-11', dateTo: '2025-03-10' },
        { dateFrom: '2025-03-10T16:00:00+02:00', dateTo: '2025-03-10T14:00:00Z' },
        { dateFrom: '2025-03-10T14:20:00Z', dateTo: '2025-03-10T14:10:00Z' },
      ]) {
        const res = await views(seeded, q(params));
        assert.equal(res.statusCode, 400, JSON.stringify(params));
        const body = res.json();
        assert.equal(body.code, 'invalid_date_range');
        assert.equal(body.details[0].name, 'dateTo');
        assert.match(body.error, /"dateTo".*later than "dateFrom"/);
      }
    });
  });
});
