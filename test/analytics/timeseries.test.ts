// GET /v1/analytics/{projectId}/timeseries: human, AI and bot views per UTC hour or day, every
// bucket of the range (empty ones as zeros), widening to whole buckets, omitted bounds, the bucket
// cap and its 400, parameter rules and access.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_TIMESERIES_BUCKETS } from '../../src/contract/index.ts';
import type { App } from '../../src/http/context.ts';
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

type Seeded = Awaited<ReturnType<typeof seedProject>>;
interface Bucket {
  start: string;
  human: number;
  ai: number;
  bot: number;
  total: number;
}
interface Series {
  interval: 'hour' | 'day';
  totals: Omit<Bucket, 'start'>;
  buckets: Bucket[];
  range: { from: string | null; to: string | null };
}

const at = (iso: string) => new Date(iso);
const zero = (start: string): Bucket => ({ start, human: 0, ai: 0, bot: 0, total: 0 });

await forEachBackend('time series export', ({ db }) => {
  let app: App;
  before(async () => {
    app = await createTestApp(db());
  });
  after(() => app.close());

  const get = (seeded: Seeded, query = '', key = seeded.readKey) =>
    app.inject({
      method: 'GET',
      url: `/v1/analytics/${seeded.project.id}/timeseries${query}`,
      headers: bearer(key),
    });
  async function series(seeded: Seeded, query = ''): Promise<Series> {
    const res = await get(seeded, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  describe('one project', () => {
    let seeded: Seeded;
    before(async () => {
      seeded = await seedProject(db());
      const p = seeded.project.id;
      const rows: PageViewCount[] = [
        { projectId: p, hour: at('2025-04-01T10:20:00Z'), path: '/a', trafficClass: 'human', views: 5 },
        {
          projectId: p,
          hour: at('2025-04-01T10:00:00Z'),
          path: '/b',
          trafficClass: 'ai',
          agent: 'GPTBot',
          views: 2,
        },
        {
          projectId: p,
          hour: at('2025-04-01T12:00:00Z'),
          path: '/a',
          trafficClass: 'bot',
          agent: 'googlebot',
          views: 4,
        },
        { projectId: p, hour: at('2025-04-03T23:00:00Z'), path: '/a', trafficClass: 'human', views: 1 },
      ];
      await recordPageViews(db(), rows);
    });

    test('hourly buckets: every hour of the range, empty ones as zeros; total = human + ai', async () => {
      const body = await series(
        seeded,
        '?interval=hour&dateFrom=2025-04-01T09:00:00Z&dateTo=2025-04-01T13:00:00Z',
      );
      assert.deepEqual(body, {
        interval: 'hour',
        totals: { human: 5, ai: 2, bot: 4, total: 7 },
        buckets: [
          zero('2025-04-01T09:00:00.000Z'),
          { start: '2025-04-01T10:00:00.000Z', human: 5, ai: 2, bot: 0, total: 7 },
          zero('2025-04-01T11:00:00.000Z'),
          { start: '2025-04-01T12:00:00.000Z', human: 0, ai: 0, bot: 4, total: 0 },
        ],
        range: { from: '2025-04-01T09:00:00.000Z', to: '2025-04-01T13:00:00.000Z' },
      });
    });

    test('daily by default; bounds widen outward to whole days; offsets convert to UTC first', async () => {
      const body = await series(
        seeded,
        `?dateFrom=2025-04-01T11:00:00Z&dateTo=${encodeURIComponent('2025-04-03T01:00:00+02:00')}`,
      );
      // 01:00+02:00 on the 3rd is 23:00Z on the 2nd: the last day counted is the 2nd.
      assert.equal(body.interval, 'day');
      assert.deepEqual(body.range, { from: '2025-04-01T00:00:00.000Z', to: '2025-04-03T00:00:00.000Z' });
      assert.deepEqual(body.buckets, [
        { start: '2025-04-01T00:00:00.000Z', human: 5, ai: 2, bot: 4, total: 7 },
        zero('2025-04-02T00:00:00.000Z'),
      ]);
      // dateTo exclusive on a day boundary; the 3rd counted when dateTo is the 4th.
      const three = await series(seeded, '?dateFrom=2025-04-01&dateTo=2025-04-04');
      assert.deepEqual(
        three.buckets.map((b) => b.total),
        [7, 0, 1],
      );
    });

    test('omitted bounds: from the first to the last bucket with views', async () => {
      const days = await series(seeded);
      assert.deepEqual(days.range, { from: '2025-04-01T00:00:00.000Z', to: '2025-04-04T00:00:00.000Z' });
      assert.deepEqual(
        days.buckets.map((b) => b.start.slice(0, 10)),
        ['2025-04-01', '2025-04-02', '2025-04-03'],
      );
      assert.deepEqual(days.totals, { human: 6, ai: 2, bot: 4, total: 8 });
      const hours = await series(seeded, '?interval=hour&dateTo=2025-04-01T12:00:00Z');
      assert.deepEqual(hours.range, { from: '2025-04-01T10:00:00.000Z', to: '2025-04-01T12:00:00.000Z' });
      assert.equal(hours.buckets.length, 2);
      // After the last views: nothing to list; the omitted bound stays null.
      const after = await series(seeded, '?dateFrom=2025-05-01');
      assert.deepEqual(after, {
        interval: 'day',
        totals: { human: 0, ai: 0, bot: 0, total: 0 },
        buckets: [],
        range: { from: '2025-05-01T00:00:00.000Z', to: null },
      });
    });

    test('the totals of a range agree with the page-view export of the same range', async () => {
      const q = '?dateFrom=2025-04-01T10:00:00Z&dateTo=2025-04-03T23:00:00Z';
      const body = await series(seeded, `${q}&interval=hour`);
      const views = await app.inject({
        method: 'GET',
        url: `/v1/analytics/${seeded.project.id}/views${q}`,
        headers: bearer(seeded.readKey),
      });
      const { human, ai, total } = views.json().totals;
      assert.deepEqual(
        { human: body.totals.human, ai: body.totals.ai, total: body.totals.total },
        { human, ai, total },
      );
    });

    test(`at most ${MAX_TIMESERIES_BUCKETS} buckets; beyond, 400 too_many_buckets naming the bound to move`, async () => {
      const from = Date.UTC(2025, 0, 1);
      const end = (hours: number) => new Date(from + hours * 3_600_000).toISOString();
      const ok = await series(
        seeded,
        `?interval=hour&dateFrom=2025-01-01&dateTo=${end(MAX_TIMESERIES_BUCKETS)}`,
      );
      assert.equal(ok.buckets.length, MAX_TIMESERIES_BUCKETS);
      const over = await get(
        seeded,
        `?interval=hour&dateFrom=2025-01-01&dateTo=${end(MAX_TIMESERIES_BUCKETS + 1)}`,
      );
      assert.equal(over.statusCode, 400);
      assert.equal(over.json().code, 'too_many_buckets');
      assert.equal(over.json().details[0].name, 'dateTo');
      assert.match(over.json().error, /2401 hour buckets; at most 2400.*interval=day/);
      // Omitted dateFrom: the series would start at the first views; the answer says to give one.
      const open = await get(seeded, '?interval=hour&dateTo=2025-08-01');
      assert.equal(open.statusCode, 400);
      assert.equal(open.json().details[0].name, 'dateFrom');
      // Days go much further.
      assert.equal((await series(seeded, '?dateFrom=2020-01-01&dateTo=2026-01-01')).buckets.length, 2192);
    });

    test('bad parameters are 400s naming them; access as for /views', async () => {
      for (const [query, name, code] of [
        ['?interval=week', 'interval', 'invalid_parameter'],
        ['?interval=hour&interval=day', 'interval', 'invalid_parameter'],
        ['?dateFrom=2025-13-01', 'dateFrom', 'invalid_parameter'],
        ['?dateFrom=2025-04-02&dateTo=2025-04-01', 'dateTo', 'invalid_date_range'],
      ] as const) {
        const res = await get(seeded, query);
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().code, code, query);
        assert.equal(res.json().details[0].name, name, query);
      }
      assert.equal((await get(seeded, '', seeded.adminKey)).statusCode, 200);
      assert.equal((await get(seeded, '', seeded.ingestKey)).json().code, 'insufficient_scope');
      assert.equal(
        (await app.inject({ method: 'GET', url: `/v1/analytics/${seeded.project.id}/timeseries` }))
          .statusCode,
        401,
      );
    });
  });

  test('a project without views: an empty series, whatever the interval', async () => {
    const empty = await seedProject(db());
    for (const interval of ['hour', 'day']) {
      assert.deepEqual(await series(empty, `?interval=${interval}`), {
        interval,
        totals: { human: 0, ai: 0, bot: 0, total: 0 },
        buckets: [],
        range: { from: null, to: null },
      });
    }
    // With both bounds, the buckets are listed, all zero.
    const bounded = await series(empty, '?dateFrom=2025-01-01&dateTo=2025-01-03');
    assert.deepEqual(bounded.buckets, [zero('2025-01-01T00:00:00.000Z'), zero('2025-01-02T00:00:00.000Z')]);
  });
});
