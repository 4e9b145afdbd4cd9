// The distinct-visitors export at scale, its error against an exact COUNT(DISTINCT), and what its
// sketches cost to store.
//
// On PostgreSQL (a fresh database on TEST_DATABASE_URL's server, dropped afterwards): the export
// benchmark's traffic (bench/lib/traffic.ts: 10 million events, 50,000 paths, 30 days at SCALE=1)
// with a visitor for every human and AI view: humans drawn from a pool of daily readers (some read
// many pages: index = pool * random^2), AI agents from a pool of 3,000 addresses; ids change every
// day, as the daily salt makes them. Loaded day by day through the store's own writers: the views
// (recordPageViews, as in the export benchmark) and the visitor ids (writeVisitorSets, what a fold of
// staged ids calls); the same events go to a raw table (one row per event, with its
// visitor id). Then, for each range of the export benchmark: GET /visitors page 1 through the real
// HTTP app, cold (first request of the range: found from the tops of its buckets, top-visitors.ts)
// and warm (p50/p99 of the following ones), beside two baselines measured in the same run: the
// same page from a ranking of every page (what a cold page 1 cost before; it must be equal) and
// the exact COUNT(DISTINCT) over the raw events (its time and the relative error of every path's
// counts and of the totals: p99 and max). Storage per million events: the page-view tables alone,
// and the visitor sketches.
//
// Run: node bench/visitors.ts   (SCALE=1, PATHS=50000, SAMPLES=100, HUMAN_POOL=120000, EXACT=1)
//
// Seeding 10 million events takes a long while, so VISITORS_DB=<name> keeps the seeded database
// between runs: a database of that name on TEST_DATABASE_URL's server is created and seeded when it
// has no bench_visitors_seed row for this SCALE, PATHS and HUMAN_POOL, reused as it is (migrated to
// the code's schema) when it has, and never dropped (DROP DATABASE it yourself). Runs of two
// checkouts (before/after) can then share one seed: run the older one first, or any one when the
// schemas match. A seed interrupted half-way leaves no bench_visitors_seed row: drop the database.
// Sketch rows seeded before migration 0027 have no bound: this run counts them all first
// (backfillSketchBounds, timed) and VACUUM ANALYZEs the table, as autovacuum would.

import { hash } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { resolveHourRange } from '../src/modules/analytics/export-range.ts';
import { readPage } from '../src/modules/analytics/store/index.ts';
import { recordPageViews } from '../src/modules/analytics/store/rollups.ts';
import { backfillSketchBounds } from '../src/modules/analytics/store/visitor-bound-backfill.ts';
// The sketches are seeded straight through the store's writer, as the fold would write them.
import { type VisitorClass, VisitorSets } from '../src/modules/analytics/store/visitor-sets.ts';
import { writeVisitorSets } from '../src/modules/analytics/store/visitor-writes.ts';
import { bearer, createTestApp, seedProject } from '../test/helpers/app.ts';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../test/helpers/databases.ts';
import { seededRandom } from './lib/random.ts';
import type { Bounds } from './lib/raw-events.ts';
import { figureLine, percentile, timed } from './lib/stats.ts';
import { hourlyTraffic, type TrafficShape } from './lib/traffic.ts';

const env = (name: string, fallback: number) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`${name} must be a positive number, got ${value}`);
  return parsed;
};
const SCALE = env('SCALE', 1);
const PATHS = Math.round(env('PATHS', 50_000));
const SAMPLES = Math.round(env('SAMPLES', 100));
const HUMAN_POOL = Math.round(env('HUMAN_POOL', 120_000));
const AI_POOL = 3000;
const DAYS = 30;
const LIMIT = 50;
const START = Date.UTC(2026, 1, 15) / 1000;
const END = START + DAYS * 86_400;
const DAY = 86_400;
const iso = (s: number) => new Date(s * 1000).toISOString();
const RANGES: { name: string; bounds: Bounds }[] = [
  { name: 'last_day', bounds: { from: iso(END - DAY), to: iso(END) } },
  { name: 'last_7d', bounds: { from: iso(END - 7 * DAY), to: iso(END) } },
  {
    name: 'last_7d_at_13h',
    bounds: { from: iso(END - 8 * DAY + 13 * 3600), to: iso(END - DAY + 13 * 3600) },
  },
  { name: 'all_30d', bounds: { from: iso(START), to: iso(END) } },
  { name: 'unbounded', bounds: { from: null, to: null } },
];
const REUSE_DB = process.env.VISITORS_DB ?? '';
/** EXACT=0 leaves out the exact COUNT(DISTINCT) and the error figures (quicker repeated runs). */
const EXACT = process.env.EXACT !== '0';
if (REUSE_DB !== '' && !/^[a-z_][a-z0-9_]*$/.test(REUSE_DB))
  throw new Error(`VISITORS_DB must be a plain lower-case database name, got ${REUSE_DB}`);
const log = (line: string) => console.log(line);
const figures: string[] = [];
/** Ranges whose early-stop page 1 differed from the ranking's (the run then fails). */
const differing: string[] = [];

/** A 53-bit id, uniform, from the day and the pool index: what the keyed hash gives ingest. */
function visitorId(day: number, visitorClass: VisitorClass, index: number): number {
  const digest = hash('sha256', `${day}:${visitorClass}:${index}`, 'buffer');
  return digest.readUIntBE(0, 6) * 32 + (digest[6]! >>> 3);
}

async function load(db: Database, shape: TrafficShape): Promise<{ viewsMs: number; sketchMs: number }> {
  await db.exec(`CREATE UNLOGGED TABLE bench_raw_visits (
    project_id text NOT NULL, ts timestamptz NOT NULL, path text NOT NULL, cls text NOT NULL, visitor bigint NOT NULL)`);
  const random = seededRandom(7);
  let viewsMs = 0;
  let sketchMs = 0;
  let day = new VisitorSets();
  let raw = { ts: [] as string[], path: [] as string[], cls: [] as string[], visitor: [] as number[] };
  let loaded = 0;
  const flush = async () => {
    sketchMs += await timed(() => db.transaction((tx) => writeVisitorSets(tx, day)));
    await db.query(
      `INSERT INTO bench_raw_visits SELECT $1, * FROM unnest($2::timestamptz[], $3::text[], $4::text[], $5::bigint[])`,
      [shape.projectId, raw.ts, raw.path, raw.cls, raw.visitor],
    );
    day = new VisitorSets();
    raw = { ts: [], path: [], cls: [], visitor: [] };
  };
  for (const hour of hourlyTraffic(shape)) {
    viewsMs += await timed(() => recordPageViews(db, hour.rows));
    const dayIndex = Math.floor(hour.hour / DAY);
    const at = iso(hour.hour);
    for (const row of hour.rows) {
      if (row.trafficClass === 'bot') continue;
      const cls = row.trafficClass;
      for (let v = 0; v < row.views; v++) {
        const index =
          cls === 'human' ? Math.floor(HUMAN_POOL * random() ** 2) : Math.floor(AI_POOL * random());
        const id = visitorId(dayIndex, cls, index);
        day.add(shape.projectId, hour.hour, cls, row.path, id);
        raw.ts.push(at);
        raw.path.push(row.path);
        raw.cls.push(cls);
        raw.visitor.push(id);
      }
    }
    loaded += hour.events;
    if ((hour.hour + 3600) % DAY === 0) {
      await flush();
      log(`  loaded ${loaded.toLocaleString('en')} of ${shape.events.toLocaleString('en')} events`);
    }
  }
  if (raw.ts.length > 0) await flush();
  await db.exec('CREATE INDEX bench_raw_visits_range ON bench_raw_visits (project_id, ts)');
  await db.exec('ANALYZE bench_raw_visits');
  return { viewsMs, sketchMs };
}

interface Counts {
  human: number;
  ai: number;
  total: number;
}

async function exact(db: Database, projectId: string, bounds: Bounds) {
  const where = `project_id = $1 AND ts >= coalesce($2::timestamptz, '-infinity') AND ts < coalesce($3::timestamptz, 'infinity')`;
  const columns = `count(DISTINCT visitor) FILTER (WHERE cls = 'human')::bigint AS human,
     count(DISTINCT visitor) FILTER (WHERE cls = 'ai')::bigint AS ai, count(DISTINCT visitor)::bigint AS total`;
  const params = [projectId, bounds.from, bounds.to];
  let totals: Counts | undefined;
  let paths: (Counts & { path: string })[] = [];
  const ms = await timed(async () => {
    [totals] = await db.query<Counts>(`SELECT ${columns} FROM bench_raw_visits WHERE ${where}`, params);
    paths = await db.query(
      `SELECT path, ${columns} FROM bench_raw_visits WHERE ${where} GROUP BY path`,
      params,
    );
  });
  return { ms, totals: totals!, paths };
}

function query(bounds: Bounds, offset: number, limit = LIMIT): string {
  const params = new URLSearchParams();
  if (bounds.from !== null) params.set('dateFrom', bounds.from);
  if (bounds.to !== null) params.set('dateTo', bounds.to);
  params.set('limit', String(limit));
  params.set('offset', String(offset));
  return params.toString();
}

/** The largest of many numbers (spreading 150,000 of them into Math.max overflows the stack). */
const largest = (values: readonly number[]) => values.reduce((a, b) => Math.max(a, b), 0);
const relative = (estimate: number, truth: number) => (truth === 0 ? 0 : Math.abs(estimate - truth) / truth);

async function run(): Promise<void> {
  const events = Math.round(10_000_000 * SCALE);
  log(
    `\n== postgres: ${events.toLocaleString('en')} events, ${PATHS.toLocaleString('en')} paths, ${DAYS} days`,
  );
  const created = REUSE_DB === '' ? await createPostgresDatabase() : await namedDatabase(REUSE_DB);
  const db = await openPostgres(created.url, { max: 5 });
  try {
    await migrate(db);
    const seedKey = `${SCALE}:${PATHS}:${HUMAN_POOL}`;
    let seeded = await reusableSeed(db, seedKey);
    if (seeded === null) {
      const { project, readKey } = await seedProject(db);
      const shape: TrafficShape = {
        projectId: project.id,
        events,
        paths: PATHS,
        start: START,
        hours: DAYS * 24,
        seed: 42,
      };
      const { viewsMs, sketchMs } = await load(db, shape);
      log(
        `   views written in ${(viewsMs / 1000).toFixed(1)} s, visitor sketches in ${(sketchMs / 1000).toFixed(1)} s`,
      );
      figures.push(
        figureLine(
          'pg_visitors_sketch_write_rate',
          events / (sketchMs / 1000),
          'events/s',
          events / (viewsMs / 1000),
        ),
      );
      seeded = { project, readKey };
      await db.exec(
        'CREATE TABLE IF NOT EXISTS bench_visitors_seed (key text, project_id text, read_key text)',
      );
      await db.query('INSERT INTO bench_visitors_seed VALUES ($1, $2, $3)', [seedKey, project.id, readKey]);
    } else log(`   reusing the seeded database ${REUSE_DB}`);
    // A database seeded before migration 0027 has rows without bounds: count them all first.
    let backfilled = 0;
    const backfillMs = await timed(async () => {
      backfilled = await backfillSketchBounds(db, Number.POSITIVE_INFINITY);
    });
    if (backfilled > 0) {
      log(
        `   ${backfilled.toLocaleString('en')} sketch bounds backfilled in ${(backfillMs / 1000).toFixed(1)} s`,
      );
      // What autovacuum would do after rewriting a million rows: the head reads stay index-only.
      await db.exec('VACUUM ANALYZE visitor_sketches');
    }
    const { project, readKey } = seeded;
    const [size] = await db.query<{ views: number; sketches: number; rows: number }>(
      `SELECT (SELECT sum(pg_total_relation_size(c)) FROM unnest(ARRAY['page_views_hourly','page_views_daily','page_views_monthly',
                'traffic_hourly','traffic_daily','agent_views_hourly','agent_views_daily']::regclass[]) AS c)::bigint AS views,
              pg_total_relation_size('visitor_sketches')::bigint AS sketches,
              (SELECT count(*) FROM visitor_sketches)::bigint AS rows`,
    );
    const perMillion = (bytes: number) => bytes / 1024 / 1024 / (events / 1e6);
    log(`   ${Number(size!.rows).toLocaleString('en')} sketch rows`);
    figures.push(
      figureLine('pg_storage_views_per_million_events', perMillion(Number(size!.views)), 'MiB', null),
    );
    figures.push(
      figureLine(
        'pg_storage_with_visitors_per_million_events',
        perMillion(Number(size!.views) + Number(size!.sketches)),
        'MiB',
        perMillion(Number(size!.views)),
      ),
    );

    const app = await createTestApp(db);
    try {
      const get = async (url: string) => {
        const res = await app.inject({ method: 'GET', url, headers: bearer(readKey) });
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
        return res.json();
      };
      const url = (bounds: Bounds, offset = 0, limit = LIMIT) =>
        `/v1/analytics/${project.id}/visitors?${query(bounds, offset, limit)}`;
      for (const range of RANGES) {
        const cold = await timed(() => get(url(range.bounds)));
        const first = await get(url(range.bounds));
        const warm: number[] = [];
        for (let i = 0; i < SAMPLES; i++) warm.push(await timed(() => get(url(range.bounds))));
        // The baseline in the same run: the same page from a ranking of every page (cold too: the
        // early stop above keeps no ranking), what the first request of a range cost before.
        const hourRange = resolveHourRange(range.bounds.from ?? undefined, range.bounds.to ?? undefined);
        let ranked: { rows: (Counts & { path: string })[] } = { rows: [] };
        const full = await timed(async () => {
          ranked = await readPage(
            db,
            project.id,
            hourRange,
            { limit: LIMIT + 1, offset: 0 },
            { report: 'visitors', nowMs: Date.now(), topVisitorsMaxRows: 0 },
          );
        });
        const key = (r: Counts & { path: string }) => `${r.path} ${r.human} ${r.ai} ${r.total}`;
        const same =
          ranked.rows.slice(0, LIMIT).map(key).join('\n') ===
          (first.visitors as (Counts & { path: string })[]).map(key).join('\n');
        log(
          `   ${range.name}: cold ${cold.toFixed(0)} ms (ranking every page: ${full.toFixed(0)} ms; page 1 ${same ? 'equal' : 'DIFFERENT'}), warm p50 ${percentile(warm, 50).toFixed(2)} ms / p99 ${percentile(warm, 99).toFixed(2)} ms`,
        );
        if (!same) differing.push(range.name);
        figures.push(figureLine(`pg_visitors_${range.name}_cold_page1`, cold, 'ms', full));
        figures.push(figureLine(`pg_visitors_${range.name}_page1_p99`, percentile(warm, 99), 'ms', full));
        if (EXACT) await compareWithExact(db, project.id, range, cold, percentile(warm, 99), get, url);
      }
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
    await created.drop();
  }
}

/** Every row of the range's ranking (kept by now) against the exact counts; prints the errors. */
async function compareWithExact(
  db: Database,
  projectId: string,
  range: { name: string; bounds: Bounds },
  cold: number,
  warmP99: number,
  get: (
    url: string,
  ) => Promise<{ totals: Counts; visitors: (Counts & { path: string })[]; hasMore: boolean }>,
  url: (bounds: Bounds, offset?: number, limit?: number) => string,
): Promise<void> {
  const rows = new Map<string, Counts>();
  let totals: Counts | null = null;
  for (let offset = 0; ; offset += 250) {
    const page = await get(url(range.bounds, offset, 250));
    totals ??= page.totals;
    for (const row of page.visitors) rows.set(row.path, row);
    if (!page.hasMore) break;
  }
  const truth = await exact(db, projectId, range.bounds);
  const errors: number[] = [];
  let missing = 0;
  for (const path of truth.paths) {
    const row = rows.get(path.path);
    if (row === undefined) {
      missing++;
      continue;
    }
    for (const k of ['human', 'ai', 'total'] as const) errors.push(relative(row[k], Number(path[k])));
  }
  const totalErrors = (['human', 'ai', 'total'] as const).map((k) =>
    relative(totals![k], Number(truth.totals[k])),
  );
  log(
    `   ${range.name}: exact COUNT(DISTINCT) ${truth.ms.toFixed(0)} ms; ` +
      `${truth.paths.length} paths (${missing} missing), path error p99 ${(100 * percentile(errors, 99)).toFixed(3)}% max ${(100 * largest(errors)).toFixed(3)}%; ` +
      `totals ${JSON.stringify(totals)} vs exact ${JSON.stringify(truth.totals)} (max error ${(100 * largest(totalErrors)).toFixed(3)}%)`,
  );
  figures.push(figureLine(`pg_visitors_${range.name}_cold_page1_vs_exact`, cold, 'ms', truth.ms));
  figures.push(figureLine(`pg_visitors_${range.name}_page1_p99_vs_exact`, warmP99, 'ms', truth.ms));
  figures.push(
    figureLine(`pg_visitors_${range.name}_path_error_p99`, 100 * percentile(errors, 99), '%', null),
  );
  figures.push(figureLine(`pg_visitors_${range.name}_path_error_max`, 100 * largest(errors), '%', null));
  figures.push(
    figureLine(`pg_visitors_${range.name}_totals_error_max`, 100 * largest(totalErrors), '%', null),
  );
}

/** VISITORS_DB's database on TEST_DATABASE_URL's server, created when missing; kept. */
async function namedDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => {} };
}

/** The project and read key of a finished seed of this shape in a reused database; null if none. */
async function reusableSeed(
  db: Database,
  key: string,
): Promise<{ project: { id: string }; readKey: string } | null> {
  if (REUSE_DB === '') return null;
  const [table] = await db.query<{ found: boolean }>(
    `SELECT to_regclass('bench_visitors_seed') IS NOT NULL AS found`,
  );
  if (!table!.found) return null;
  const rows = await db.query<{ project_id: string; read_key: string }>(
    'SELECT project_id, read_key FROM bench_visitors_seed WHERE key = $1',
    [key],
  );
  if (rows[0] === undefined) {
    throw new Error(`${REUSE_DB} holds another seed; drop it or name another database`);
  }
  return { project: { id: rows[0].project_id }, readKey: rows[0].read_key };
}

log(
  `visitors benchmark: ${SAMPLES} timed page-1 requests per range; humans from a daily pool of ${HUMAN_POOL}, AI from ${AI_POOL} addresses`,
);
await run();
console.log('');
for (const line of figures) console.log(line);
if (differing.length > 0) {
  console.error(`page 1 differed from the ranking's for: ${differing.join(', ')}`);
  process.exitCode = 1;
}
