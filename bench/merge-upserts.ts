// The merges' rollup upserts on PGlite, alone: the same keys written again and again into
// page_views_hourly and the levels above it (recordPageViews, the writers the staged-views merge
// uses), as the ingest bench's merges do once its key space is full. Prints the thread CPU per
// merge (PGlite runs on this thread), optionally with a table fillfactor, a VACUUM of the rollup
// tables every N merges (PGlite runs no autovacuum) and a history of older hours already stored,
// so what a vacuum costs on a table with months of rows shows too.
//
// Run: node bench/merge-upserts.ts [--keys 5000] [--merges 40] [--fillfactor 100]
//      [--vacuum-every 0] [--history-hours 0] [--setup-sql 'SQL']
//   --setup-sql runs after the migrations, to compare a schema change (e.g. 'DROP INDEX
//   page_views_daily_by_total; ALTER TABLE page_views_daily SET (fillfactor = 80)').
import { parseArgs } from 'node:util';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite } from '../src/db/pglite.ts';
import { vacuumIngestTables } from '../src/modules/analytics/store/rollup-vacuum.ts';
import { type PageViewCount, recordPageViews } from '../src/modules/analytics/store/rollups.ts';
import { createProject } from '../src/modules/projects/service.ts';
import { formatStatementTimes, timePgliteStatements } from './lib/pglite-statement-times.ts';

const { values: args } = parseArgs({
  options: {
    keys: { type: 'string', default: '5000' },
    merges: { type: 'string', default: '40' },
    fillfactor: { type: 'string' },
    'vacuum-every': { type: 'string', default: '0' },
    'history-hours': { type: 'string', default: '0' },
    statements: { type: 'boolean', default: false },
    // Instead of the merger's vacuum (rollup-vacuum.ts): this statement, to compare.
    'vacuum-sql': { type: 'string' },
    'setup-sql': { type: 'string' },
  },
});
const KEYS = Number(args.keys);
const MERGES = Number(args.merges);
const VACUUM_EVERY = Number(args['vacuum-every']);
const HISTORY_HOURS = Number(args['history-hours']);
const VACUUM_SQL = args['vacuum-sql'];
const vacuum = (db: Database) => (VACUUM_SQL === undefined ? vacuumIngestTables(db) : db.exec(VACUUM_SQL));

const CLASSES = [
  { trafficClass: 'human', agent: '', verification: '' },
  { trafficClass: 'ai', agent: 'GPTBot', verification: 'ip' },
  { trafficClass: 'bot', agent: 'Googlebot', verification: 'ip' },
] as const;

function rowsAt(projectId: string, hour: Date): PageViewCount[] {
  const rows: PageViewCount[] = [];
  for (let k = 0; k < KEYS; k++) {
    const c = CLASSES[Math.floor(k / 2000) % CLASSES.length]!;
    rows.push({ projectId, hour, path: `/docs/page-${k % 2000}`, ...c, views: 1 + (k % 7) });
  }
  return rows;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.threadCpuUsage(since);
  return (used.user + used.system) / 1000;
};

const db = await openPglite(null);
await migrate(db);
if (args.fillfactor !== undefined) {
  await db.exec(`ALTER TABLE page_views_hourly SET (fillfactor = ${Number(args.fillfactor)})`);
}
if (args['setup-sql'] !== undefined) await db.exec(args['setup-sql']);
const project = await createProject(
  db,
  { name: 'Bench', repositoryUrl: 'https://github.com/example/docs' },
  { allowPrivateAddresses: true },
);
const now = Date.UTC(2026, 10, 27, 12);
// History straight into the tables (the merges would take minutes): HISTORY_HOURS hours of 2,000
// human rows each, and their days, then vacuumed once, as a database that has run for a while.
if (HISTORY_HOURS > 0) {
  await db.query(
    `INSERT INTO page_views_hourly (project_id, hour, path, traffic_class, views)
     SELECT $1, to_timestamp($2::bigint - h * 3600), '/docs/page-' || p, 'human', 1
       FROM generate_series(1, $3::int) AS h, generate_series(0, 1999) AS p`,
    [project.id, now / 1000, HISTORY_HOURS],
  );
  await db.query(
    `INSERT INTO page_views_daily (project_id, day, path, human, ai)
     SELECT $1, to_timestamp($2::bigint - d * 86400), '/docs/page-' || p, 24, 0
       FROM generate_series(1, $3::int) AS d, generate_series(0, 1999) AS p`,
    [project.id, now / 1000 - 12 * 3600, Math.ceil(HISTORY_HOURS / 24)],
  );
  const v = process.threadCpuUsage();
  await vacuum(db);
  console.log(`history: first vacuum ${cpuMs(v).toFixed(0)} ms CPU`);
}

const times = args.statements ? timePgliteStatements() : null;
const merges: number[] = [];
const vacuums: number[] = [];
for (let m = 0; m < MERGES; m++) {
  const started = process.threadCpuUsage();
  await recordPageViews(db, rowsAt(project.id, new Date(now)));
  merges.push(cpuMs(started));
  if (VACUUM_EVERY > 0 && (m + 1) % VACUUM_EVERY === 0) {
    const v = process.threadCpuUsage();
    await vacuum(db);
    vacuums.push(cpuMs(v));
  }
}
const [size] = await db.query<{ heap: number; index: number }>(
  `SELECT pg_relation_size('page_views_hourly')::int AS heap, pg_relation_size('page_views_hourly_pkey')::int AS index`,
);
const [hot] = await db.query<{ hot: number; upd: number }>(
  `SELECT n_tup_hot_upd::int AS hot, n_tup_upd::int AS upd FROM pg_stat_user_tables WHERE relname = 'page_views_hourly'`,
);
const [dailyHot] = await db.query<{ hot: number; upd: number }>(
  `SELECT n_tup_hot_upd::int AS hot, n_tup_upd::int AS upd FROM pg_stat_user_tables WHERE relname = 'page_views_daily'`,
);
await db.close();
// "per 1,000 events" reads as per 1,000 keys merged here.
if (times !== null) console.log(formatStatementTimes(times, KEYS * MERGES));

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const later = merges.slice(Math.floor(merges.length / 4));
const total = merges.reduce((a, b) => a + b, 0) + vacuums.reduce((a, b) => a + b, 0);
console.log(
  `keys ${KEYS}, merges ${MERGES}, fillfactor ${args.fillfactor ?? 'default'}, vacuum every ${VACUUM_EVERY || 'never'}, history ${HISTORY_HOURS} h:` +
    ` merge ${mean(later).toFixed(1)} ms CPU (last three quarters), vacuum ${mean(vacuums).toFixed(1)} ms × ${vacuums.length},` +
    ` all ${(total / MERGES).toFixed(1)} ms per merge; hourly heap ${(size!.heap / 1024).toFixed(0)} KB, pkey ${(size!.index / 1024).toFixed(0)} KB,` +
    ` HOT ${hot ? `${hot.hot}/${hot.upd}` : 'n/a'}; daily HOT ${dailyHot ? `${dailyHot.hot}/${dailyHot.upd}` : 'n/a'}`,
);
