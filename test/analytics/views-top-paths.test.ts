// The first pages of /views for a range without a ranking (store/top-paths.ts: the top of each
// bucket of the range, stopping once no unseen path can enter the page) against the hourly truth:
// skewed data with many paths and many ties, ranges on and off midnight, across sealed and
// unsealed months, unbounded sides, offsets up to the method's limit. Such reads build no ranking.
// Both backends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { edgeDays } from '../../src/modules/analytics/store/top-paths.ts';
import { exportPageViews } from '../../src/modules/analytics/views.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

const HOUR = 3600;
const DAY = 86_400;
const utc = (iso: string) => Date.parse(iso) / 1000;
const iso = (t: number) => new Date(t * 1000).toISOString();

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

const FROM = utc('2024-01-20T00:00:00Z');
const TO = utc('2024-04-10T00:00:00Z');

/** Many paths, a few very popular (rank 1 about 1,500 times the last), names in odd byte orders. */
function skewedRows(projectId: string, random: () => number, count: number): PageViewCount[] {
  const rows: PageViewCount[] = [];
  const hours = (TO - FROM) / HOUR;
  for (let i = 0; i < count; i++) {
    const rank = Math.floor(1500 ** random());
    const path = [`/docs/${rank}`, `/Docs/${rank}`, `/é/${rank}`, `/a-${rank}`][rank % 4]!;
    const r = random();
    const trafficClass = r < 0.6 ? 'human' : r < 0.9 ? 'ai' : 'bot';
    rows.push({
      projectId,
      hour: new Date((FROM + Math.floor(random() * hours) * HOUR) * 1000),
      path,
      trafficClass,
      agent: trafficClass === 'human' ? '' : 'GPTBot',
      verification: trafficClass === 'ai' ? 'verified' : '',
      views: 1 + Math.floor(random() * 3),
    });
  }
  return rows;
}

async function truth(db: Database, projectId: string, from: number | null, to: number | null) {
  const rows = await db.query<{ path: string; human: number | null; ai: number | null; total: number }>(
    `SELECT path, sum(views) FILTER (WHERE traffic_class = 'human')::bigint AS human,
            sum(views) FILTER (WHERE traffic_class = 'ai')::bigint AS ai, sum(views)::bigint AS total
       FROM page_views_hourly
      WHERE project_id = $1 AND traffic_class IN ('human', 'ai')
        AND ($2::double precision IS NULL OR hour >= to_timestamp($2::double precision))
        AND ($3::double precision IS NULL OR hour < to_timestamp($3::double precision))
      GROUP BY path ORDER BY total DESC, path COLLATE "C"`,
    [projectId, from, to],
  );
  return rows.map((r) => ({ path: r.path, human: r.human ?? 0, ai: r.ai ?? 0, total: r.total }));
}

const rankings = async (db: Database, projectId: string) =>
  (await db.query('SELECT 1 FROM page_view_rankings WHERE project_id = $1', [projectId])).length;

await forEachBackend('/views first pages without a ranking', ({ db, backend }) => {
  test('equal the hourly truth over random ranges, and build no ranking', async () => {
    const random = prng(backend === 'pglite' ? 5 : 6);
    const projectId = (await seedProject(db())).project.id;
    await recordPageViews(db(), skewedRows(projectId, random, 12_000));
    const ranges: [number | null, number | null][] = [
      [null, null],
      [FROM, TO],
      [utc('2024-03-09T00:00:00Z'), utc('2024-03-10T00:00:00Z')],
      [utc('2024-03-09T05:00:00Z'), utc('2024-03-09T06:00:00Z')],
      [utc('2024-03-09T05:00:00Z'), utc('2024-03-10T23:00:00Z')],
      [utc('2024-02-03T13:00:00Z'), utc('2024-02-10T13:00:00Z')],
      [utc('2024-01-31T22:00:00Z'), null],
      [null, utc('2024-03-01T07:00:00Z')],
    ];
    for (let i = 0; i < 30; i++) {
      const a = FROM - 3 * DAY + Math.floor(random() * ((TO - FROM) / HOUR + 6 * 24)) * HOUR;
      const b = a + (1 + Math.floor(random() * (random() < 0.5 ? 48 : 40 * 24))) * HOUR;
      ranges.push([a, b]);
    }
    const check = async (from: number | null, to: number | null) => {
      const expected = await truth(db(), projectId, from, to);
      const query = {
        ...(from !== null && { dateFrom: iso(from) }),
        ...(to !== null && { dateTo: iso(to) }),
      };
      for (const [limit, offset] of [
        [50, 0],
        [1 + Math.floor(random() * 40), Math.floor(random() * 300)],
        [250, 749],
      ] as const) {
        const got = await exportPageViews(db(), projectId, { ...query, limit, offset });
        const label = `${JSON.stringify(query)} limit ${limit} offset ${offset}`;
        assert.deepEqual(got.views, expected.slice(offset, offset + limit), label);
        assert.equal(got.hasMore, offset + limit < expected.length, `hasMore ${label}`);
      }
    };
    for (const [from, to] of ranges) await check(from, to);
    assert.equal(await rankings(db(), projectId), 0, 'first pages build no ranking');

    // Once a ranking has sealed the past months, the same reads use whole months, still exact.
    await exportPageViews(db(), projectId, { limit: 10 }, { topPathsMaxRows: 0 });
    const sealed = await db().query('SELECT 1 FROM page_view_sealed_months WHERE project_id = $1', [
      projectId,
    ]);
    assert.ok(sealed.length >= 2, 'months sealed');
    await db().query('DELETE FROM page_view_rankings WHERE project_id = $1', [projectId]);
    for (const [from, to] of ranges.slice(0, 12)) await check(from, to);
    assert.equal(await rankings(db(), projectId), 0);
  });

  test('a deeper page than the method reads builds a ranking, as before', async () => {
    const random = prng(backend === 'pglite' ? 7 : 8);
    const projectId = (await seedProject(db())).project.id;
    await recordPageViews(db(), skewedRows(projectId, random, 6000));
    const expected = await truth(db(), projectId, null, null);
    const got = await exportPageViews(db(), projectId, { limit: 50, offset: 1000 });
    assert.deepEqual(got.views, expected.slice(1000, 1050));
    assert.equal(await rankings(db(), projectId), 1);
  });
});

await forEachBackend('/views first pages: edge days read as the day minus its other hours', ({ db }) => {
  const D = utc('2024-03-09T00:00:00Z');
  const view = (
    projectId: string,
    at: number,
    path: string,
    views: number,
    trafficClass: 'human' | 'ai' | 'bot' = 'human',
  ): PageViewCount => ({
    projectId,
    hour: new Date(at * 1000),
    path,
    trafficClass,
    agent: trafficClass === 'human' ? '' : trafficClass === 'ai' ? 'GPTBot' : 'googlebot',
    verification: trafficClass === 'ai' ? 'verified' : '',
    views,
  });

  test('which side of an edge day is probed: the fewer hours with views', () => {
    const edge = Array.from({ length: 22 }, (_, i) => D + (2 + i) * HOUR);
    const views = new Map([
      [D, 0], // bots only: no human or AI views, never probed
      [D + HOUR, 5],
      [D + 5 * HOUR, 1],
      [D + 20 * HOUR, 7],
    ]);
    assert.deepEqual(edgeDays(edge, views), [
      { day: D, hours: [D + 5 * HOUR, D + 20 * HOUR], others: [D + HOUR], complement: true },
    ]);
    // Two edge hours of three with views: the edge itself.
    assert.deepEqual(edgeDays([D, D + HOUR, D + 2 * HOUR], views), [
      { day: D, hours: [D + HOUR], others: [D + 5 * HOUR, D + 20 * HOUR], complement: false },
    ]);
    // No views in the edge hours: the day is no list at all.
    assert.deepEqual(edgeDays([D + 10 * HOUR], views), []);
  });

  test('equal the hourly truth when the edge is the day minus its other hours', async () => {
    const projectId = (await seedProject(db())).project.id;
    const rows: PageViewCount[] = [
      // Outside the range's edge (01:00) but inside its day: must be subtracted.
      view(projectId, D + HOUR, '/a', 100),
      view(projectId, D + HOUR, '/z', 1),
      view(projectId, D, '/a', 40, 'bot'),
      // In the edge hours.
      view(projectId, D + 5 * HOUR, '/a', 3),
      view(projectId, D + 20 * HOUR, '/b', 60),
      view(projectId, D + 10 * HOUR, '/c', 30, 'ai'),
      view(projectId, D + 11 * HOUR, '/c', 20),
      view(projectId, D + 5 * HOUR, '/z', 2),
      // The whole day after: /z on top of it, so it is a candidate although the edge day's head
      // (64 rows deep) does not show it: its day is then probed.
      view(projectId, D + DAY + 12 * HOUR, '/z', 1000),
      view(projectId, D + DAY + 13 * HOUR, '/d', 5, 'ai'),
    ];
    for (let i = 0; i < 70; i++) rows.push(view(projectId, D + (2 + (i % 22)) * HOUR, `/many/${i}`, 10));
    await recordPageViews(db(), rows);
    for (const [from, to] of [
      [D + 2 * HOUR, D + 2 * DAY],
      [D + 2 * HOUR, D + DAY + 14 * HOUR],
      [D + 5 * HOUR, D + 21 * HOUR],
    ] as const) {
      const expected = await truth(db(), projectId, from, to);
      for (const [limit, offset] of [
        [1, 0],
        [5, 0],
        [50, 0],
        [3, 70],
      ] as const) {
        const got = await exportPageViews(db(), projectId, {
          dateFrom: iso(from),
          dateTo: iso(to),
          limit,
          offset,
        });
        assert.deepEqual(
          got.views,
          expected.slice(offset, offset + limit),
          `${iso(from)} ${limit} ${offset}`,
        );
      }
    }
    assert.equal(await rankings(db(), projectId), 0);
  });
});
