// Export latency at scale, and the write cost of the rollup levels that make it fast.
//
// For each backend: loads synthetic traffic (bench/lib/traffic.ts: 10 million events over 30 days
// and 50,000 paths at SCALE=1) through recordPageViews, the module's own write function, one
// transaction per hour of traffic; copies the same views into a raw events table (one row per
// event); then measures GET /v1/analytics/{id}/views through the real HTTP app (app.inject: routing,
// auth, validation, serialisation; no socket) for page 1 and page 100 over several ranges, against
// the plain GROUP BY over the raw events measured in the same run. The first page 1 of a range is
// found without a ranking (*_cold_page1, then repeated: *_page1_no_ranking_*); the first page 100
// builds the ranking (*_cold_page100_builds); the following requests read it (p50/p99); the first
// page 1 built as before (a ranking) and found without one, alternated in the store
// (*_cold_page1_store_*); and the page summed from the levels (*_levels_only_page1_p50). Also:
// the agents export and an hourly time series against their GROUP BYs, and the write rate with the
// levels (and with live rankings) against hourly rows alone, on the same traffic. Each backend's
// reads also log their wall time against the process's CPU time (logReadsCpu, below): the figures
// are wall time, which other work on a shared machine inflates.
//
// Run: node bench/analytics-export.ts
//   SCALE=1            events on PostgreSQL, in units of 10 million (default 1)
//   PGLITE_SCALE=0.1   events on PGlite, same unit (default 0.1: 10 million in-process is impractical)
//   PATHS=50000        distinct paths
//   BACKENDS=postgres,pglite
//   SAMPLES=100        timed export requests per (range, page); BASELINE_SAMPLES=3 per baseline figure
//   COLD_ROUNDS=3      alternated first-page-1 rounds per range (ranking build against none)
//   LOAD_HOURS=1       hours of traffic per load transaction (6 loads about twice as fast)
//   KEEP_DB=name       PostgreSQL only: keep the loaded database under this name and reuse it (below)
// PostgreSQL: a fresh database on TEST_DATABASE_URL's server (default postgres@127.0.0.1:5432),
// dropped afterwards. With KEEP_DB, the database of that name is kept after the run; a later run
// with the same KEEP_DB and the same SCALE, PATHS and LOAD_HOURS skips the load (a 10-million-event
// load takes 10-25 minutes here): it applies any new migrations, forgets the rankings and sealed
// months of the bench's project (so every range is cold again, as right after a load) and makes
// a new read key. The load rate is then not measured. Drop it by hand when done
// (`DROP DATABASE name`).

import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite } from '../src/db/pglite.ts';
import { openPostgres } from '../src/db/postgres.ts';
import type { App } from '../src/http/context.ts';
import { writeHourlyOnly } from '../src/modules/analytics/store/level-writes.ts';
import { splitRange } from '../src/modules/analytics/store/range-split.ts';
import { readPathPage } from '../src/modules/analytics/store/reads.ts';
import { selectPathViewsPageFromLevels } from '../src/modules/analytics/store/report-queries.ts';
// The store's internals, for the comparisons only a benchmark makes (hourly rows alone, the page
// summed from the levels); the service uses store/index.ts.
import { aggregate, recordPageViews } from '../src/modules/analytics/store/rollups.ts';
import { pathSpanParams } from '../src/modules/analytics/store/span-params.ts';
import { createKey } from '../src/modules/keys/index.ts';
import { bearer, createTestApp, seedProject } from '../test/helpers/app.ts';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../test/helpers/databases.ts';
import {
  type Bounds,
  baselineAgentsPage,
  baselineHourlySeries,
  baselinePathsPage,
  createRawEvents,
} from './lib/raw-events.ts';
import { figureLine, percentile, timed } from './lib/stats.ts';
import { hourlyTraffic, type TrafficHour, type TrafficShape } from './lib/traffic.ts';

const UNIT_EVENTS = 10_000_000;
const DAYS = 30;
const LIMIT = 50;
// 30 days across a month boundary, as a live site's "last 30 days" usually is.
const START = Date.UTC(2026, 1, 15) / 1000; // 2026-02-15T00:00Z
const END = START + DAYS * 86_400; // 2026-03-17T00:00Z

const env = (name: string, fallback: number) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`${name} must be a positive number, got ${value}`);
  return parsed;
};
const SCALE = env('SCALE', 1);
const PGLITE_SCALE = env('PGLITE_SCALE', 0.1);
const PATHS = Math.round(env('PATHS', 50_000));
const SAMPLES = Math.round(env('SAMPLES', 100));
const BASELINE_SAMPLES = Math.round(env('BASELINE_SAMPLES', 3));
const COLD_ROUNDS = Math.round(env('COLD_ROUNDS', 3));
// Hours of traffic per write while loading: the same sums in fewer, larger transactions (a quicker
// load; pg_load_rate then no longer measures one ingest commit per hour).
const LOAD_HOURS = Math.round(env('LOAD_HOURS', 1));
const KEEP_DB = process.env.KEEP_DB || null;
if (KEEP_DB !== null && !/^[a-z_][a-z0-9_]*$/.test(KEEP_DB))
  throw new Error(`KEEP_DB must be a lower-case SQL name`);
const BACKENDS = (process.env.BACKENDS ?? 'postgres,pglite').split(',').map((b) => b.trim());

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();
const DAY = 86_400;
const RANGES: { name: string; bounds: Bounds }[] = [
  { name: 'last_day', bounds: { from: iso(END - DAY), to: iso(END) } },
  { name: 'last_7d', bounds: { from: iso(END - 7 * DAY), to: iso(END) } },
  // Not on midnight: 11 edge hours + 6 days + 13 edge hours.
  {
    name: 'last_7d_at_13h',
    bounds: { from: iso(END - 8 * DAY + 13 * 3600), to: iso(END - DAY + 13 * 3600) },
  },
  // "The last 24 hours" asked just after midnight, the traffic ending then: 23 edge hours of the
  // last day and one of the next, without views yet (the last day is read as its day minus 00:00).
  { name: 'last_24h_at_01h', bounds: { from: iso(END - DAY + 3600), to: iso(END + 3600) } },
  { name: 'all_30d', bounds: { from: iso(START), to: iso(END) } },
  { name: 'unbounded', bounds: { from: null, to: null } },
];

const figures: string[] = [];
const log = (line: string) => console.log(line);

async function openBackend(backend: string): Promise<{ db: Database; close: () => Promise<void> }> {
  if (backend === 'pglite') {
    const db = await openPglite(null);
    await migrate(db);
    return { db, close: () => db.close() };
  }
  if (KEEP_DB !== null) {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [KEEP_DB]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${KEEP_DB}`);
    await admin.end();
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${KEEP_DB}`;
    const db = await openPostgres(url.toString(), { max: 5 });
    await migrate(db);
    return { db, close: () => db.close() };
  }
  const created = await createPostgresDatabase();
  const db = await openPostgres(created.url, { max: 5 });
  await migrate(db);
  return {
    db,
    close: async () => {
      await db.close();
      await created.drop();
    },
  };
}

function query(bounds: Bounds, offset: number): string {
  const params = new URLSearchParams();
  if (bounds.from !== null) params.set('dateFrom', bounds.from);
  if (bounds.to !== null) params.set('dateTo', bounds.to);
  params.set('limit', String(LIMIT));
  params.set('offset', String(offset));
  return params.toString();
}

async function get(app: App, key: string, url: string): Promise<{ ms: number; body: unknown }> {
  let body: unknown;
  const ms = await timed(async () => {
    const res = await app.inject({ method: 'GET', url, headers: bearer(key) });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    body = res.json();
  });
  return { ms, body };
}

async function samples(count: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await timed(fn));
  return out;
}

/** Loads the traffic through recordPageViews, one transaction per hour; returns events/s. */
async function load(db: Database, shape: TrafficShape): Promise<{ rate: number; keys: number }> {
  let keys = 0;
  let events = 0;
  const start = process.hrtime.bigint();
  let lastReport = Date.now();
  let batch: TrafficHour['rows'] = [];
  let hours = 0;
  for (const hour of hourlyTraffic(shape)) {
    batch.push(...hour.rows);
    events += hour.events;
    if (++hours % LOAD_HOURS !== 0 && hours < shape.hours) continue;
    const result = await recordPageViews(db, batch);
    keys += result.keys;
    batch = [];
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      log(`  loading: ${events.toLocaleString('en')} of ${shape.events.toLocaleString('en')} events`);
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { rate: events / seconds, keys };
}

/** events/s of writing the same two days of traffic three ways, each into its own new project. */
async function measureWrites(db: Database, app: App, prefix: string, eventsPerDay: number): Promise<void> {
  const shape = (projectId: string): TrafficShape => ({
    projectId,
    events: Math.round(eventsPerDay * 2),
    paths: PATHS,
    start: END,
    hours: 48,
    seed: 7,
  });
  const hourlyOnly = (await seedProject(db)).project.id;
  const withLevels = (await seedProject(db)).project.id;
  const withRankings = await seedProject(db);
  // Four live rankings that cover the hours written, as four dashboards open on the project would
  // (page 100: first pages are found without a ranking, so they build none).
  for (const bounds of [
    { from: null, to: null },
    { from: iso(END - 7 * DAY), to: null },
    { from: iso(START), to: iso(END + 3 * DAY) },
    { from: iso(END), to: iso(END + DAY) },
  ]) {
    await get(
      app,
      withRankings.readKey,
      `/v1/analytics/${withRankings.project.id}/views?${query(bounds, 99 * LIMIT)}`,
    );
  }
  const rate = async (write: (hour: TrafficHour) => Promise<unknown>, projectId: string) => {
    let events = 0;
    const start = process.hrtime.bigint();
    for (const hour of hourlyTraffic(shape(projectId))) {
      await write(hour);
      events += hour.events;
    }
    return events / (Number(process.hrtime.bigint() - start) / 1e9);
  };
  const base = await rate(
    (hour) => db.transaction((tx) => writeHourlyOnly(tx, aggregate(hour.rows))),
    hourlyOnly,
  );
  const levels = await rate((hour) => recordPageViews(db, hour.rows), withLevels);
  const ranked = await rate((hour) => recordPageViews(db, hour.rows), withRankings.project.id);
  figures.push(figureLine(`${prefix}_write_with_levels`, levels, 'events/s', base));
  figures.push(figureLine(`${prefix}_write_with_levels_4_rankings`, ranked, 'events/s', base));
}

/**
 * The reads' wall time against this process's CPU time and involuntary context switches, logged
 * per backend. Every figure is wall time, and on the shared 2 cores here a backend's reads can
 * lose a fifth of it waiting for a core taken by other work: a section slower in wall time with
 * the same CPU time and more switches waited for the machine, not for its engine. That is how
 * PGlite's figures in full runs came out slower at fillfactor 80 than at 100 while the two,
 * alternated in one process after the PostgreSQL section, showed no such difference
 * (docs/analytics-export.md, "PGlite and fillfactor 80 in full runs").
 */
function logReadsCpu(start: { at: bigint; usage: NodeJS.ResourceUsage }): void {
  const end = process.resourceUsage();
  const wall = Number(process.hrtime.bigint() - start.at) / 1e9;
  const cpu =
    (end.userCPUTime - start.usage.userCPUTime + end.systemCPUTime - start.usage.systemCPUTime) / 1e6;
  const switches = end.involuntaryContextSwitches - start.usage.involuntaryContextSwitches;
  log(
    `   reads: ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s of this process's CPU, ${switches.toLocaleString('en')} involuntary context switches; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

const keptShape = (events: number) => JSON.stringify({ events, paths: PATHS, loadHours: LOAD_HOURS });

/**
 * The bench's project in a kept database loaded by an earlier run (KEEP_DB), reset to "just
 * loaded": no rankings, no sealed month; null when the database is new. Refuses a database loaded
 * with another shape.
 */
async function keptProject(
  db: Database,
  events: number,
): Promise<{ project: { id: string }; readKey: string } | null> {
  const [table] = await db.query<{ t: string | null }>(`SELECT to_regclass('bench_kept')::text AS t`);
  if (table!.t === null) {
    const [used] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM page_views_hourly');
    if (used!.n > 0) throw new Error(`KEEP_DB=${KEEP_DB} holds views but no bench_kept: drop it`);
    return null;
  }
  const [row] = await db.query<{ project_id: string; shape: string }>('SELECT * FROM bench_kept');
  if (row!.shape !== keptShape(events)) {
    throw new Error(`KEEP_DB=${KEEP_DB} was loaded with ${row!.shape}, not ${keptShape(events)}: drop it`);
  }
  const projectId = row!.project_id;
  await db.query('DELETE FROM page_view_rankings WHERE project_id = $1', [projectId]);
  await db.query('DELETE FROM page_views_monthly WHERE project_id = $1', [projectId]);
  await db.query('DELETE FROM page_view_sealed_months WHERE project_id = $1', [projectId]);
  const readKey = (await createKey(db, { projectId, scope: 'read' })).key;
  return { project: { id: projectId }, readKey };
}

async function run(backend: string, scale: number): Promise<void> {
  const prefix = backend === 'postgres' ? 'pg' : 'pglite';
  const events = Math.round(UNIT_EVENTS * scale);
  log(
    `\n== ${backend}: ${events.toLocaleString('en')} events, ${PATHS.toLocaleString('en')} paths, ${DAYS} days from ${iso(START)}`,
  );
  if (backend === 'pglite' && scale < 1) {
    log(
      `   (PGlite at ${scale} of the 10-million-event scale: in-process, in memory, 10 million is impractical here)`,
    );
  }
  const { db, close } = await openBackend(backend);
  try {
    const kept = backend === 'postgres' && KEEP_DB !== null ? await keptProject(db, events) : null;
    const seeded = kept ?? (await seedProject(db));
    const projectId = seeded.project.id;
    const shape: TrafficShape = { projectId, events, paths: PATHS, start: START, hours: DAYS * 24, seed: 42 };
    const loaded = kept === null ? await load(db, shape) : null;
    const counts = await db.query<Record<string, number>>(
      `SELECT (SELECT count(*) FROM page_views_hourly)::bigint AS hourly,
              (SELECT count(*) FROM page_views_daily)::bigint AS daily,
              (SELECT count(*) FROM page_views_monthly)::bigint AS monthly,
              (SELECT count(*) FROM traffic_hourly)::bigint AS traffic,
              (SELECT count(*) FROM agent_views_hourly)::bigint AS agents,
              (SELECT count(DISTINCT path) FROM page_views_daily)::bigint AS paths`,
    );
    const c = counts[0]!;
    log(
      `   ${loaded === null ? 'loaded earlier' : `loaded at ${Math.round(loaded.rate).toLocaleString('en')} events/s`}: ${c.hourly!.toLocaleString('en')} hourly rows, ${c.daily!.toLocaleString('en')} daily path rows, ${c.monthly!.toLocaleString('en')} monthly, ${c.traffic!.toLocaleString('en')} traffic hours, ${c.agents!.toLocaleString('en')} agent-hour rows; ${c.paths!.toLocaleString('en')} paths seen`,
    );
    if (loaded === null) {
      log(
        `   reused the database ${KEEP_DB} (loaded by an earlier run; rankings and sealed months forgotten)`,
      );
    } else {
      figures.push(figureLine(`${prefix}_load_rate`, loaded.rate, 'events/s', null));
    }

    const raw =
      kept === null
        ? await createRawEvents(db, projectId)
        : (await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM bench_raw_events'))[0]!.n;
    if (KEEP_DB !== null && kept === null && backend === 'postgres') {
      await db.exec('CREATE TABLE bench_kept (project_id text NOT NULL, shape text NOT NULL)');
      await db.query('INSERT INTO bench_kept VALUES ($1, $2)', [projectId, keptShape(events)]);
    }
    assert.equal(raw, events, 'the raw events table holds every event');
    log(`   raw events table: ${raw.toLocaleString('en')} rows, indexed on (project_id, ts)`);
    for (const table of [
      'page_views_hourly',
      'page_views_daily',
      'page_views_monthly',
      'traffic_hourly',
      'agent_views_hourly',
    ]) {
      await db.exec(`ANALYZE ${table}`);
    }

    const app = await createTestApp(db);
    try {
      const views = `/v1/analytics/${projectId}/views`;
      const readsStart = { at: process.hrtime.bigint(), usage: process.resourceUsage() };
      for (const range of RANGES) {
        // Page 1 with no ranking: found from the top of the range's buckets (store/top-paths.ts),
        // first cold, then repeated (a client that only reads page 1 never builds a ranking).
        const cold = await get(app, seeded.readKey, `${views}?${query(range.bounds, 0)}`);
        const top1 = await samples(SAMPLES, () =>
          get(app, seeded.readKey, `${views}?${query(range.bounds, 0)}`),
        );
        // Page 100 builds the range's ranking (what the first page 1 used to do).
        const page100Offset = 99 * LIMIT;
        const page100 = await get(app, seeded.readKey, `${views}?${query(range.bounds, page100Offset)}`);
        const warm1 = await samples(SAMPLES, () =>
          get(app, seeded.readKey, `${views}?${query(range.bounds, 0)}`),
        );
        const warm100 = await samples(SAMPLES, () =>
          get(app, seeded.readKey, `${views}?${query(range.bounds, page100Offset)}`),
        );
        // The baselines, each sample also checking exactness at scale: the export's pages equal
        // the plain GROUP BY's.
        const base1 = await samples(BASELINE_SAMPLES, async () => {
          const rows = await baselinePathsPage(db, projectId, range.bounds, LIMIT, 0);
          assert.deepEqual((cold.body as { views: unknown[] }).views, rows, `${range.name} page 1`);
        });
        const base100 = await samples(BASELINE_SAMPLES, async () => {
          const rows = await baselinePathsPage(db, projectId, range.bounds, LIMIT, page100Offset);
          assert.deepEqual((page100.body as { views: unknown[] }).views, rows, `${range.name} page 100`);
        });
        // The alternative without the ranking cache: the same page summed from the levels on
        // every request (what the export falls back to when it cannot build a ranking).
        const hourRange = {
          from: range.bounds.from === null ? null : Date.parse(range.bounds.from) / 1000,
          to: range.bounds.to === null ? null : Date.parse(range.bounds.to) / 1000,
        };
        const levelsOnly = await samples(BASELINE_SAMPLES, () =>
          selectPathViewsPageFromLevels(db, projectId, pathSpanParams(splitRange(hourRange, null)), {
            limit: LIMIT,
            offset: 0,
          }),
        );
        // Before and after in one run, alternated: the first page 1 of the range building its
        // ranking (as before top-paths.ts) against finding it without one; rankings dropped
        // before each (months stay sealed once sealed).
        const coldBuild: number[] = [];
        const coldTop: number[] = [];
        for (let round = 0; round < COLD_ROUNDS; round++) {
          for (const build of [true, false]) {
            await db.query('DELETE FROM page_view_rankings WHERE project_id = $1', [projectId]);
            const ms = await timed(() =>
              readPathPage(
                db,
                projectId,
                hourRange,
                { limit: LIMIT + 1, offset: 0 },
                build ? { topPathsMaxRows: 0 } : {},
              ),
            );
            (build ? coldBuild : coldTop).push(ms);
          }
        }
        const n = `${prefix}_views_${range.name}`;
        figures.push(figureLine(`${n}_cold_page1`, cold.ms, 'ms', percentile(base1, 50)));
        figures.push(
          figureLine(`${n}_page1_no_ranking_p50`, percentile(top1, 50), 'ms', percentile(base1, 50)),
        );
        figures.push(
          figureLine(`${n}_page1_no_ranking_p99`, percentile(top1, 99), 'ms', percentile(base1, 99)),
        );
        figures.push(figureLine(`${n}_cold_page100_builds`, page100.ms, 'ms', percentile(base100, 50)));
        figures.push(
          figureLine(
            `${n}_cold_page1_store_top_p50`,
            percentile(coldTop, 50),
            'ms',
            percentile(coldBuild, 50),
          ),
        );
        figures.push(figureLine(`${n}_cold_page1_store_build_p50`, percentile(coldBuild, 50), 'ms', null));
        figures.push(figureLine(`${n}_page1_p50`, percentile(warm1, 50), 'ms', percentile(base1, 50)));
        figures.push(figureLine(`${n}_page1_p99`, percentile(warm1, 99), 'ms', percentile(base1, 99)));
        figures.push(figureLine(`${n}_page100_p50`, percentile(warm100, 50), 'ms', percentile(base100, 50)));
        figures.push(figureLine(`${n}_page100_p99`, percentile(warm100, 99), 'ms', percentile(base100, 99)));
        figures.push(
          figureLine(`${n}_levels_only_page1_p50`, percentile(levelsOnly, 50), 'ms', percentile(base1, 50)),
        );
        log(
          `   ${range.name}: cold ${cold.ms.toFixed(1)} ms (store, alternated: top ${coldTop.map((m) => m.toFixed(0)).join('/')} ms, build ${coldBuild.map((m) => m.toFixed(0)).join('/')} ms), page 1 p99 ${percentile(warm1, 99).toFixed(2)} ms, baseline p50 ${percentile(base1, 50).toFixed(0)} ms`,
        );
      }

      logReadsCpu(readsStart);

      const all = RANGES.find((r) => r.name === 'all_30d')!.bounds;
      const agentsUrl = `/v1/analytics/${projectId}/agents?${query(all, 0)}`;
      const agents = await samples(SAMPLES, () => get(app, seeded.readKey, agentsUrl));
      const agentsBase = await samples(BASELINE_SAMPLES, () => baselineAgentsPage(db, projectId, all, LIMIT));
      figures.push(
        figureLine(`${prefix}_agents_all_30d_p50`, percentile(agents, 50), 'ms', percentile(agentsBase, 50)),
      );
      figures.push(
        figureLine(`${prefix}_agents_all_30d_p99`, percentile(agents, 99), 'ms', percentile(agentsBase, 99)),
      );
      const seriesUrl = `/v1/analytics/${projectId}/timeseries?interval=hour&dateFrom=${all.from}&dateTo=${all.to}`;
      const series = await samples(SAMPLES, () => get(app, seeded.readKey, seriesUrl));
      const seriesBase = await samples(BASELINE_SAMPLES, () => baselineHourlySeries(db, projectId, all));
      figures.push(
        figureLine(
          `${prefix}_timeseries_hour_all_30d_p50`,
          percentile(series, 50),
          'ms',
          percentile(seriesBase, 50),
        ),
      );
      figures.push(
        figureLine(
          `${prefix}_timeseries_hour_all_30d_p99`,
          percentile(series, 99),
          'ms',
          percentile(seriesBase, 99),
        ),
      );

      await measureWrites(db, app, prefix, events / DAYS);
    } finally {
      await app.close();
    }
  } finally {
    await close();
  }
}

log(
  `analytics export benchmark: ${SAMPLES} timed requests per figure, ${BASELINE_SAMPLES} per baseline figure (its p99 is the worst of those); page 100 = offset ${99 * LIMIT}, limit ${LIMIT}`,
);
for (const backend of BACKENDS) {
  if (backend !== 'postgres' && backend !== 'pglite') throw new Error(`unknown backend ${backend}`);
  await run(backend, backend === 'postgres' ? SCALE : Math.min(SCALE, PGLITE_SCALE));
}
console.log('');
for (const line of figures) console.log(line);
