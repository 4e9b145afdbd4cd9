// Paging walks over 10,000 paths, checked against counts kept in the test itself (not SQL): every
// path exactly once and in the documented order (total descending, then path in byte order) for
// ranges whose bounds fall on hour and day boundaries (dateTo exclusive), inside hours, and in
// time zones from -09:30 to +14:00. Both backends.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { HOUR_MS } from '../../src/util/time.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

const PATHS = 10_000;
const START = Date.UTC(2025, 9, 30, 18); // 2025-10-30T18:00Z: the data crosses a day and a month end

interface PathViews {
  path: string;
  human: number;
  ai: number;
  total: number;
}

/**
 * Each path has views in three hours spread over three days, counts chosen so that totals tie
 * often (the order then leans on the path tie-break) and every range below selects a different
 * subset. Names mix upper and lower case, digits and non-ASCII, so byte order matters.
 */
function dataset(projectId: string): PageViewCount[] {
  const rows: PageViewCount[] = [];
  for (let i = 0; i < PATHS; i++) {
    const path = [`/guide/${i}`, `/Guide/${i % 977}/${i}`, `/é/${i}`, `/api/v${i % 3}/${i}`][i % 4]!;
    const hours = [i % 23, 23 + ((i * 7) % 31), 54 + ((i * 13) % 29)];
    hours.forEach((h, k) => {
      const hour = new Date(START + h * HOUR_MS + ((i * 17) % 60) * 60_000);
      rows.push({ projectId, hour, path, trafficClass: 'human', views: 1 + ((i + k) % 5) });
      if ((i + k) % 3 === 0)
        rows.push({
          projectId,
          hour,
          path,
          trafficClass: 'ai',
          agent: 'GPTBot',
          verification: 'verified',
          views: 1 + (k % 2),
        });
      if ((i + k) % 7 === 0)
        rows.push({ projectId, hour, path, trafficClass: 'bot', agent: 'googlebot', views: 3 });
    });
  }
  return rows;
}

/** The expected listing of [from, to) in epoch ms (null = unbounded), from the rows themselves. */
function expectedListing(
  rows: readonly PageViewCount[],
  from: number | null,
  to: number | null,
): PathViews[] {
  const byPath = new Map<string, PathViews>();
  for (const row of rows) {
    const hour = Math.floor(row.hour.getTime() / HOUR_MS) * HOUR_MS;
    if (row.trafficClass === 'bot' || (from !== null && hour < from) || (to !== null && hour >= to)) continue;
    const v = byPath.get(row.path) ?? { path: row.path, human: 0, ai: 0, total: 0 };
    if (row.trafficClass === 'human') v.human += row.views;
    else v.ai += row.views;
    v.total += row.views;
    byPath.set(row.path, v);
  }
  const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  return [...byPath.values()].sort((a, b) => b.total - a.total || byteOrder(a.path, b.path));
}

await forEachBackend('paging walk over 10,000 paths', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  let rows: PageViewCount[];
  before(async () => {
    app = await createTestApp(db());
    seeded = await seedProject(db());
    rows = dataset(seeded.project.id);
    await recordPageViews(db(), rows);
  });
  after(() => app.close());

  async function walk(params: Record<string, string>, limit: number) {
    const seen: PathViews[] = [];
    let totals: unknown;
    let range: unknown;
    for (let offset = 0; ; offset += limit) {
      const query = new URLSearchParams({ ...params, limit: String(limit), offset: String(offset) });
      const res = await app.inject({
        method: 'GET',
        url: `/v1/analytics/${seeded.project.id}/views?${query}`,
        headers: bearer(seeded.readKey),
      });
      assert.equal(res.statusCode, 200, res.body);
      const page = res.json();
      if (totals === undefined) ({ totals, range } = page);
      assert.deepEqual(page.totals, totals, 'the same totals on every page');
      assert.ok(page.views.length <= limit);
      seen.push(...page.views);
      if (!page.hasMore) break;
      assert.equal(page.views.length, limit, 'only the last page is short');
    }
    return { seen, totals, range };
  }

  async function assertWalk(
    params: Record<string, string>,
    from: number | null,
    to: number | null,
    limit: number,
  ) {
    const expected = expectedListing(rows, from, to);
    const { seen, totals, range } = await walk(params, limit);
    assert.equal(new Set(seen.map((v) => v.path)).size, seen.length, 'no path twice');
    assert.equal(seen.length, expected.length, 'every path once');
    assert.deepEqual(seen, expected, 'in order: total descending, then path in byte order');
    const human = expected.reduce((s, v) => s + v.human, 0);
    const ai = expected.reduce((s, v) => s + v.ai, 0);
    assert.deepEqual(totals, { human, ai, total: human + ai });
    assert.deepEqual(range, {
      from: from === null ? null : new Date(from).toISOString(),
      to: to === null ? null : new Date(to).toISOString(),
    });
    return expected.length;
  }

  test('unbounded: all 10,000 paths, every one exactly once, in order (limit 250 and an odd limit)', async () => {
    assert.equal(await assertWalk({}, null, null, 250), PATHS);
    assert.equal(await assertWalk({}, null, null, 97), PATHS);
  });

  test('dateTo is exclusive on a day boundary, and on the month end', async () => {
    const nov1 = Date.UTC(2025, 10, 1);
    const n = await assertWalk({ dateTo: '2025-11-01' }, null, nov1, 250);
    // Every path was read before November: the counts (checked above) show what was cut.
    assert.equal(n, PATHS);
    await assertWalk(
      { dateFrom: '2025-10-31', dateTo: '2025-11-01T00:00:00Z' },
      Date.UTC(2025, 9, 31),
      nov1,
      250,
    );
    await assertWalk({ dateFrom: '2025-11-01' }, nov1, null, 250);
  });

  test('dateTo is exclusive on an hour boundary; bounds inside an hour widen outward', async () => {
    const h = (hours: number) => START + hours * HOUR_MS;
    await assertWalk(
      { dateFrom: new Date(h(5)).toISOString(), dateTo: new Date(h(30)).toISOString() },
      h(5),
      h(30),
      250,
    );
    await assertWalk(
      { dateFrom: new Date(h(5) + 1).toISOString(), dateTo: new Date(h(30) - 1).toISOString() },
      h(5),
      h(30),
      250,
    );
    await assertWalk(
      { dateFrom: new Date(h(29)).toISOString(), dateTo: new Date(h(30)).toISOString() },
      h(29),
      h(30),
      250,
    );
  });

  test('time-zone offsets: local days from -09:30 to +14:00 count the UTC hours they cover', async () => {
    const cases: [string, string, number, number][] = [
      // A local day at +14:00 (Kiribati) starts at 10:00Z the day before.
      [
        '2025-11-01T00:00:00+14:00',
        '2025-11-02T00:00:00+14:00',
        Date.UTC(2025, 9, 31, 10),
        Date.UTC(2025, 10, 1, 10),
      ],
      // -09:30 (Marquesas): not whole hours, so both ends widen outward (09:30Z → 09:00Z, → 10:00Z).
      [
        '2025-10-31T00:00:00-09:30',
        '2025-11-01T00:00:00-09:30',
        Date.UTC(2025, 9, 31, 9),
        Date.UTC(2025, 10, 1, 10),
      ],
      // +05:45 (Nepal), written without the colon.
      [
        '2025-11-01T06:00:00+0545',
        '2025-11-01T18:00:00+0545',
        Date.UTC(2025, 10, 1, 0),
        Date.UTC(2025, 10, 1, 13),
      ],
      // -03 (hours only) crossing the month end in UTC.
      [
        '2025-10-31T20:00:00-03',
        '2025-11-01T20:00:00-03',
        Date.UTC(2025, 9, 31, 23),
        Date.UTC(2025, 10, 1, 23),
      ],
    ];
    for (const [dateFrom, dateTo, from, to] of cases) {
      const n = await assertWalk({ dateFrom, dateTo }, from, to, 250);
      assert.ok(n > 0, `${dateFrom} selects some paths`);
    }
  });
});
