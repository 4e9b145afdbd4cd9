// The fast export (levels, sealed months and the ranking cache) against the hourly truth: on random
// data and random ranges (edge hours, whole days, month boundaries, offsets, unbounded sides), every
// page and the totals equal a straightforward GROUP BY over page_views_hourly, and every level
// equals the sums of its hours, after each kind of write: fresh data, late views into sealed
// months, writes into ranges with live rankings, idle rankings, eviction, concurrent writers and
// builders. Both backends.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { addViews, type PageViewCount, ViewSums } from '../../src/modules/analytics/store/index.ts';
import { exportPageViews } from '../../src/modules/analytics/views.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

// This file tests the ranking cache: without a ranking, a first page would be found from the top
// of the range's buckets (top-paths.ts, tested on its own in views-top-paths.test.ts), so reads
// here ask for the ranking, except where a comparison says otherwise.
const exportRanked = (
  db: Database,
  projectId: string,
  request: Parameters<typeof exportPageViews>[2],
  options: Parameters<typeof exportPageViews>[3] = {},
) => exportPageViews(db, projectId, request, { topPathsMaxRows: 0, ...options });

const HOUR = 3600;
const DAY = 86_400;
const utc = (iso: string) => Date.parse(iso) / 1000;

/** A small seeded PRNG so a failure can be replayed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

const CLASSES = ['human', 'human', 'human', 'ai', 'ai', 'bot'] as const;
const AGENTS = ['GPTBot', 'ClaudeBot', 'PerplexityBot', 'markdown-client'];

/** Random rows for hours in [from, to): a few paths very popular, a long tail, names in odd byte orders. */
function randomRows(
  projectId: string,
  random: () => number,
  count: number,
  from: number,
  to: number,
): PageViewCount[] {
  const rows: PageViewCount[] = [];
  const hours = (to - from) / HOUR;
  for (let i = 0; i < count; i++) {
    const rank = Math.floor(150 ** random());
    const path = [`/docs/${rank}`, `/Docs/${rank}`, `/é/${rank}`, `/a-${rank}`][rank % 4]!;
    const trafficClass = CLASSES[Math.floor(random() * CLASSES.length)]!;
    const agent = trafficClass === 'human' ? '' : AGENTS[Math.floor(random() * AGENTS.length)]!;
    rows.push({
      projectId,
      hour: new Date(
        (from + Math.floor(random() * hours) * HOUR) * 1000 + Math.floor(random() * HOUR * 1000),
      ),
      path,
      trafficClass,
      agent,
      verification: trafficClass === 'ai' ? (random() < 0.5 ? 'verified' : 'unverified') : '',
      views: 1 + Math.floor(random() * 5),
    });
  }
  return rows;
}

interface Row {
  path: string;
  human: number;
  ai: number;
  total: number;
}

/** The truth, as anyone would write it: one GROUP BY over the hourly rows of the range. */
async function truth(db: Database, projectId: string, from: number | null, to: number | null) {
  const rows = await db.query<Row>(
    `SELECT path, sum(views) FILTER (WHERE traffic_class = 'human')::bigint AS human,
            sum(views) FILTER (WHERE traffic_class = 'ai')::bigint AS ai, sum(views)::bigint AS total
       FROM page_views_hourly
      WHERE project_id = $1 AND traffic_class IN ('human', 'ai')
        AND ($2::double precision IS NULL OR hour >= to_timestamp($2::double precision))
        AND ($3::double precision IS NULL OR hour < to_timestamp($3::double precision))
      GROUP BY path ORDER BY total DESC, path COLLATE "C"`,
    [projectId, from, to],
  );
  const views = rows.map((r) => ({ path: r.path, human: r.human ?? 0, ai: r.ai ?? 0, total: r.total }));
  const human = views.reduce((s, v) => s + v.human, 0);
  const ai = views.reduce((s, v) => s + v.ai, 0);
  return { views, totals: { human, ai, total: human + ai } };
}

/** Every level equals the sums of the hourly rows it summarises. */
async function assertLevelsMatchHours(db: Database, projectId: string): Promise<void> {
  const checks: [string, string, string][] = [
    [
      'daily paths',
      `SELECT day AS b, path AS k, human, ai FROM page_views_daily WHERE project_id = $1`,
      `SELECT date_trunc('day', hour, 'UTC') AS b, path AS k,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0)::bigint AS human,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0)::bigint AS ai
         FROM page_views_hourly WHERE project_id = $1 AND traffic_class <> 'bot' GROUP BY 1, 2`,
    ],
    [
      'monthly paths of sealed months',
      `SELECT month AS b, path AS k, human, ai FROM page_views_monthly WHERE project_id = $1`,
      `SELECT date_trunc('month', hour, 'UTC') AS b, path AS k,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0)::bigint AS human,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0)::bigint AS ai
         FROM page_views_hourly h WHERE project_id = $1 AND traffic_class <> 'bot'
          AND date_trunc('month', hour, 'UTC') IN (SELECT month FROM page_view_sealed_months WHERE project_id = $1)
        GROUP BY 1, 2`,
    ],
    [
      'hourly traffic',
      `SELECT hour AS b, '' AS k, human, ai, bot FROM traffic_hourly WHERE project_id = $1`,
      `SELECT hour AS b, '' AS k, coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0)::bigint AS human,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0)::bigint AS ai,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'bot'), 0)::bigint AS bot
         FROM page_views_hourly WHERE project_id = $1 GROUP BY 1`,
    ],
    [
      'daily traffic',
      `SELECT day AS b, '' AS k, human, ai, bot FROM traffic_daily WHERE project_id = $1`,
      `SELECT date_trunc('day', hour, 'UTC') AS b, '' AS k,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0)::bigint AS human,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0)::bigint AS ai,
              coalesce(sum(views) FILTER (WHERE traffic_class = 'bot'), 0)::bigint AS bot
         FROM page_views_hourly WHERE project_id = $1 GROUP BY 1`,
    ],
    [
      'hourly agents',
      `SELECT hour AS b, agent || '/' || verification AS k, views FROM agent_views_hourly WHERE project_id = $1`,
      `SELECT hour AS b, agent || '/' || verification AS k, sum(views)::bigint AS views
         FROM page_views_hourly WHERE project_id = $1 AND traffic_class = 'ai' GROUP BY 1, 2`,
    ],
    [
      'daily agents',
      `SELECT day AS b, agent || '/' || verification AS k, views FROM agent_views_daily WHERE project_id = $1`,
      `SELECT date_trunc('day', hour, 'UTC') AS b, agent || '/' || verification AS k, sum(views)::bigint AS views
         FROM page_views_hourly WHERE project_id = $1 AND traffic_class = 'ai' GROUP BY 1, 2`,
    ],
  ];
  const sorted = (rows: Record<string, unknown>[]) =>
    rows
      .map((r) => JSON.stringify({ ...r, b: (r.b as Date).toISOString() }))
      .sort()
      .join('\n');
  for (const [name, level, hours] of checks) {
    assert.equal(
      sorted(await db.query(level, [projectId])),
      sorted(await db.query(hours, [projectId])),
      name,
    );
  }
}

interface AskedRange {
  query: { dateFrom?: string; dateTo?: string };
  from: number | null;
  to: number | null;
}

const iso = (t: number) => new Date(t * 1000).toISOString();

/** A random range: bounds on hours, days, months, inside hours with offsets, or omitted. */
function randomRange(random: () => number, from: number, to: number): AskedRange {
  const pick = (): { text: string; floor: number; ceil: number } => {
    const t = from + Math.floor(random() * ((to - from) / HOUR)) * HOUR;
    const kind = Math.floor(random() * 5);
    if (kind === 0) {
      const day = Math.floor(t / DAY) * DAY;
      return { text: iso(day).slice(0, 10), floor: day, ceil: day };
    }
    if (kind === 1) {
      const d = new Date(t * 1000);
      const month = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
      return { text: iso(month).slice(0, 10), floor: month, ceil: month };
    }
    if (kind === 2) {
      // 16:00 at +05:30 is 10:30Z: inside an hour, widened outward.
      const inside = t + 30 * 60;
      const local = new Date((inside + 5.5 * HOUR) * 1000).toISOString().slice(0, 19);
      return { text: `${local}+05:30`, floor: t, ceil: t + HOUR };
    }
    if (kind === 3) {
      const local = new Date((t - 7 * HOUR) * 1000).toISOString().slice(0, 19);
      return { text: `${local}-07:00`, floor: t, ceil: t };
    }
    return { text: iso(t), floor: t, ceil: t };
  };
  for (;;) {
    const a = random() < 0.15 ? null : pick();
    const b = random() < 0.15 ? null : pick();
    if (a && b && a.floor === b.floor) continue;
    const [lo, hi] = a && b && a.floor > b.floor ? [b, a] : [a, b];
    if (lo && hi && lo.floor >= hi.floor) continue;
    const query: AskedRange['query'] = {};
    if (lo) query.dateFrom = lo.text;
    if (hi) query.dateTo = hi.text;
    return { query, from: lo?.floor ?? null, to: hi?.ceil ?? null };
  }
}

await forEachBackend('fast page-view export equals the hourly truth', ({ db, backend }) => {
  const random = prng(backend === 'pglite' ? 11 : 12);
  // Mostly long-ended months (always sealed when read), plus the days around now (never sealed).
  const PAST_FROM = utc('2024-01-20T00:00:00Z');
  const PAST_TO = utc('2024-05-10T00:00:00Z');
  const nowHour = Math.floor(Date.now() / 1000 / HOUR) * HOUR;
  const RECENT_FROM = nowHour - 20 * DAY;
  const RECENT_TO = nowHour + HOUR;

  async function compareRandomRanges(projectId: string, count: number, window: [number, number]) {
    for (let i = 0; i < count; i++) {
      const range = randomRange(random, window[0], window[1]);
      const expected = await truth(db(), projectId, range.from, range.to);
      const limit = 1 + Math.floor(random() * 40);
      const offset = random() < 0.3 ? 0 : Math.floor(random() * (expected.views.length + 5));
      // Half through the ranking cache, half through the top of the buckets (top-paths.ts).
      const read = i % 2 === 0 ? exportPageViews : exportRanked;
      const got = await read(db(), projectId, { ...range.query, limit, offset });
      const label = `${JSON.stringify(range.query)} limit ${limit} offset ${offset} ${read.name}`;
      assert.deepEqual(got.totals, expected.totals, `totals ${label}`);
      assert.deepEqual(got.views, expected.views.slice(offset, offset + limit), `views ${label}`);
      assert.equal(got.hasMore, offset + limit < expected.views.length, `hasMore ${label}`);
      assert.deepEqual(got.range, {
        from: range.from === null ? null : iso(range.from),
        to: range.to === null ? null : iso(range.to),
      });
    }
  }

  // Asked in the first test and again after later writes: their rankings must have been kept exact.
  const fixedRanges: AskedRange[] = [
    { query: {}, from: null, to: null },
    { query: { dateFrom: '2024-02-01' }, from: utc('2024-02-01T00:00:00Z'), to: null },
    {
      query: { dateFrom: '2024-01-25T07:30:00+01:00', dateTo: '2024-04-02T19:00:00Z' },
      from: utc('2024-01-25T06:00:00Z'),
      to: utc('2024-04-02T19:00:00Z'),
    },
    { query: { dateFrom: iso(nowHour - 5 * DAY - 3 * HOUR) }, from: nowHour - 5 * DAY - 3 * HOUR, to: null },
  ];

  async function compareFixedRanges(projectId: string) {
    for (const range of fixedRanges) {
      const expected = await truth(db(), projectId, range.from, range.to);
      for (const offset of [0, 37]) {
        const got = await exportRanked(db(), projectId, { ...range.query, limit: 60, offset });
        assert.deepEqual(got.totals, expected.totals, `totals ${JSON.stringify(range.query)}`);
        assert.deepEqual(
          got.views,
          expected.views.slice(offset, offset + 60),
          `views ${JSON.stringify(range.query)}`,
        );
      }
    }
  }

  describe('one project through every kind of write', () => {
    let projectId: string;
    before(async () => {
      projectId = (await seedProject(db())).project.id;
    });

    test('fresh data: random ranges over past and recent months', async () => {
      // Large batches (one statement per table) and small ones (the combined statement).
      await recordPageViews(db(), randomRows(projectId, random, 3000, PAST_FROM, PAST_TO));
      for (let i = 0; i < 5; i++)
        await recordPageViews(db(), randomRows(projectId, random, 150, RECENT_FROM, RECENT_TO));
      await assertLevelsMatchHours(db(), projectId);
      await compareRandomRanges(projectId, 40, [PAST_FROM - 10 * DAY, PAST_TO + 10 * DAY]);
      await compareRandomRanges(projectId, 15, [RECENT_FROM - DAY, RECENT_TO + DAY]);
      await compareFixedRanges(projectId);
      const sealed = await db().query('SELECT 1 FROM page_view_sealed_months WHERE project_id = $1', [
        projectId,
      ]);
      assert.ok(sealed.length > 0, 'reading past months sealed some');
    });

    test('late views into sealed months and writes under live rankings keep every page exact', async () => {
      // The same ranges again will find their rankings live; these writes must update them.
      for (let i = 0; i < 4; i++) {
        await recordPageViews(db(), randomRows(projectId, random, 200, PAST_FROM, PAST_TO));
        await recordPageViews(db(), randomRows(projectId, random, 1500, RECENT_FROM, RECENT_TO));
      }
      await assertLevelsMatchHours(db(), projectId);
      const live = await db().query('SELECT 1 FROM page_view_rankings WHERE project_id = $1 AND NOT stale', [
        projectId,
      ]);
      assert.ok(live.length >= fixedRanges.length, 'rankings were kept');
      await compareFixedRanges(projectId);
      const unbounded = await truth(db(), projectId, null, null);
      assert.deepEqual(
        (await exportRanked(db(), projectId, { limit: 250 })).views,
        unbounded.views.slice(0, 250),
      );
      await compareRandomRanges(projectId, 25, [PAST_FROM - 10 * DAY, RECENT_TO + DAY]);
    });

    test('an idle ranking is marked stale by the next writer, then rebuilt exactly', async () => {
      const query = { dateFrom: '2024-02-01', dateTo: '2024-04-15' };
      await exportRanked(db(), projectId, query);
      await db().query(
        `UPDATE page_view_rankings SET last_used_at = now() - interval '1 day'
          WHERE project_id = $1 AND range_from = '2024-02-01' AND range_to = '2024-04-15'`,
        [projectId],
      );
      await recordPageViews(
        db(),
        randomRows(projectId, random, 100, utc('2024-03-01T00:00:00Z'), utc('2024-03-02T00:00:00Z')),
      );
      const [state] = await db().query<{ stale: boolean }>(
        `SELECT stale FROM page_view_rankings WHERE project_id = $1 AND range_from = '2024-02-01' AND range_to = '2024-04-15'`,
        [projectId],
      );
      assert.equal(state?.stale, true, 'not maintained any more');
      const expected = await truth(db(), projectId, utc('2024-02-01T00:00:00Z'), utc('2024-04-15T00:00:00Z'));
      assert.deepEqual(
        (await exportRanked(db(), projectId, { ...query, limit: 250 })).views,
        expected.views.slice(0, 250),
      );
    });

    test('more ranges than a project keeps: the least recently used go, answers stay exact', async () => {
      for (let day = 0; day < 20; day++) {
        const from = PAST_FROM + day * 3 * DAY;
        await exportRanked(db(), projectId, { dateFrom: iso(from), dateTo: iso(from + 5 * DAY) });
      }
      const [{ n }] = (await db().query<{ n: number }>(
        'SELECT count(*)::bigint AS n FROM page_view_rankings WHERE project_id = $1',
        [projectId],
      )) as [{ n: number }];
      assert.ok(n <= 16, `at most 16 rankings kept, found ${n}`);
      await compareRandomRanges(projectId, 10, [PAST_FROM, PAST_TO]);
    });

    test('addViews refuses a transaction that is not READ COMMITTED, and writes nothing', async () => {
      const before = await truth(db(), projectId, null, null);
      await assert.rejects(
        db().transaction(async (tx) => {
          await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
          await addViews(tx, ViewSums.ofRows(randomRows(projectId, random, 10, RECENT_FROM, RECENT_TO)));
        }),
        /READ COMMITTED/,
      );
      assert.deepEqual(await truth(db(), projectId, null, null), before);
    });
  });

  test('several projects in one batch: each project only its own views', async () => {
    const a = (await seedProject(db())).project.id;
    const b = (await seedProject(db())).project.id;
    await exportRanked(db(), a, {});
    await exportRanked(db(), b, {});
    await recordPageViews(db(), [
      ...randomRows(a, random, 300, PAST_FROM, PAST_TO),
      ...randomRows(b, random, 300, PAST_FROM, PAST_TO),
    ]);
    for (const id of [a, b]) {
      await assertLevelsMatchHours(db(), id);
      assert.deepEqual(
        (await exportRanked(db(), id, { limit: 250 })).views,
        (await truth(db(), id, null, null)).views.slice(0, 250),
      );
    }
  });

  test('concurrent writers and ranking builds: no view lost or counted twice', async () => {
    const projectId = (await seedProject(db())).project.id;
    await recordPageViews(db(), randomRows(projectId, random, 500, PAST_FROM, PAST_TO));
    const ranges = [
      {},
      { dateFrom: '2024-02-01' },
      { dateFrom: '2024-01-25T07:00:00Z', dateTo: '2024-04-02T19:00:00Z' },
      { dateFrom: '2024-03-01', dateTo: '2024-04-01' },
    ];
    const writers = backend === 'postgres' ? 4 : 2;
    await Promise.all([
      ...Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < 6; i++) {
          // Small and large batches, so both write paths race the builds.
          await recordPageViews(
            db(),
            randomRows(projectId, random, w % 2 === 0 ? 80 : 1400, PAST_FROM, PAST_TO),
          );
        }
      }),
      (async () => {
        for (let round = 0; round < 3; round++) {
          for (const range of ranges) {
            await exportRanked(db(), projectId, range);
            // Evict them now and then, so builds keep happening during the writes.
            if (round === 1)
              await db().query('UPDATE page_view_rankings SET stale = true WHERE project_id = $1', [
                projectId,
              ]);
          }
        }
      })(),
    ]);
    await assertLevelsMatchHours(db(), projectId);
    for (const range of ranges) {
      const from = range.dateFrom
        ? utc(range.dateFrom.length === 10 ? `${range.dateFrom}T00:00:00Z` : range.dateFrom)
        : null;
      const to = range.dateTo
        ? utc(range.dateTo.length === 10 ? `${range.dateTo}T00:00:00Z` : range.dateTo)
        : null;
      const expected = await truth(db(), projectId, from, to);
      const got = await exportRanked(db(), projectId, { ...range, limit: 250 });
      assert.deepEqual(got.totals, expected.totals, JSON.stringify(range));
      assert.deepEqual(got.views, expected.views.slice(0, 250), JSON.stringify(range));
    }
  });

  test("a build waits for a writer in flight, and its ranking then holds that writer's views", {
    skip: backend === 'pglite' ? 'PGlite is one session: writers and builds never overlap' : false,
  }, async () => {
    const projectId = (await seedProject(db())).project.id;
    await recordPageViews(db(), randomRows(projectId, random, 300, PAST_FROM, PAST_TO));
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const isWritten = new Promise<void>((resolve) => {
      written = resolve;
    });
    // This writer has written its rows and read its targets (no ranking yet) but not committed.
    const writer = db().transaction(async (tx) => {
      await addViews(tx, ViewSums.ofRows(randomRows(projectId, random, 400, PAST_FROM, PAST_TO)));
      written();
      await released;
    });
    await isWritten;
    const exporting = exportRanked(db(), projectId, { limit: 250 });
    // Give the build time to reach the lock (and, were it not waiting, to finish without the writer).
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await writer;
    const got = await exporting;
    const expected = await truth(db(), projectId, null, null);
    assert.deepEqual(got.views, expected.views.slice(0, 250), 'the first answer, read after the commit');
    // The ranking itself (what every later page reads) counts the writer's views too.
    assert.deepEqual(
      (await exportRanked(db(), projectId, { limit: 250 })).views,
      expected.views.slice(0, 250),
    );
    assert.equal(
      (await db().query('SELECT 1 FROM page_view_rankings WHERE project_id = $1', [projectId])).length,
      1,
    );
  });

  test('a build that cannot get the lock in time answers from the levels, exactly', {
    skip: backend === 'pglite' ? 'PGlite is one session: nothing can hold the lock' : false,
  }, async () => {
    const projectId = (await seedProject(db())).project.id;
    await recordPageViews(db(), randomRows(projectId, random, 800, PAST_FROM, PAST_TO));
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // A writer holding the shared lock, as a long log-import transaction would.
    const holder = db().transaction(async (tx) => {
      await addViews(tx, ViewSums.ofRows(randomRows(projectId, random, 5, PAST_FROM, PAST_TO)));
      locked();
      await released;
    });
    await isLocked;
    const expected = await truth(db(), projectId, utc('2024-02-03T00:00:00Z'), utc('2024-03-09T05:00:00Z'));
    const got = await exportPageViews(
      db(),
      projectId,
      { dateFrom: '2024-02-03', dateTo: '2024-03-09T05:00:00Z', limit: 100 },
      { buildLockTimeoutMs: 200 },
    );
    release();
    await holder;
    assert.deepEqual(got.views, expected.views.slice(0, 100));
    assert.deepEqual(got.totals, expected.totals);
    const rankings = await db().query('SELECT 1 FROM page_view_rankings WHERE project_id = $1', [projectId]);
    assert.equal(rankings.length, 0, 'no ranking was built while the writer held the lock');
  });
});
