// What docs/deployment.md says about growing past one PostgreSQL rests on this check. It is not a
// benchmark of speed but of shape: on a scratch database filled with synthetic projects, page views
// and jobs, it runs docwright's own hot paths (the views export cold and warm, the levels fallback,
// ingestion, get/list/claim a job, the key lookup, the /metrics gauges) through a database wrapper
// that records every statement they send, then EXPLAINs each one and prints which tables and
// indexes it touches and whether its index condition is scoped by project and by time. Then it
// tries declarative partitioning on a copy of page_views_hourly (by month, and by hash of the
// project): the same ingestion upsert runs on it, and the plans show how many partitions a
// statement reads.
//
// Run: node bench/schema-scale-check.ts
//   PROJECTS=20 DAYS=60 PATHS=40 JOBS=500000
// A fresh database on TEST_DATABASE_URL's server (default postgres@127.0.0.1:5432), dropped after.
import { readFileSync } from 'node:fs';
import type { Database, Queryable } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { countJobsByStatus, selectJobQueue } from '../src/metrics/queries.ts';
import { addViews, ViewSums } from '../src/modules/analytics/store/index.ts';
import { exportPageViews } from '../src/modules/analytics/views.ts';
import { getJob, listJobs } from '../src/modules/jobs/service.ts';
import { claimNextJob } from '../src/modules/jobs/worker-queries.ts';
import { checkKey, createKey } from '../src/modules/keys/service.ts';
import { createProject } from '../src/modules/projects/service.ts';
import { HOUR_MS } from '../src/util/time.ts';
import { createPostgresDatabase } from '../test/helpers/databases.ts';

/** The benchmark's repositories are local: DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE=true. */
const TEST_REPOSITORIES = { allowPrivateAddresses: true };

const env = (name: string, fallback: number) => {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
};
const PROJECTS = env('PROJECTS', 20);
const DAYS = env('DAYS', 60);
const PATHS = env('PATHS', 40);
const JOBS = env('JOBS', 500_000);
const NOW = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
const FIRST_HOUR = NOW - DAYS * 24 * HOUR_MS;

interface Statement {
  sql: string;
  params: readonly unknown[];
  path: string;
}

/** A database whose statements (also inside transactions) are recorded under the current path. */
function recording(db: Database, log: Statement[], path: () => string): Database {
  const wrap = (q: Queryable): Queryable => ({
    query: (sql, params = []) => {
      log.push({ sql, params, path: path() });
      return q.query(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  return { ...db, ...wrap(db), transaction: (fn) => db.transaction((tx) => fn(wrap(tx))) };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

interface Scan {
  relation: string;
  how: string;
  cond: string;
}

function scansOf(node: PlanNode, out: Scan[] = []): Scan[] {
  if (node['Relation Name']) {
    out.push({
      relation: node['Relation Name'],
      how: node['Index Name'] ? `${node['Node Type']} using ${node['Index Name']}` : node['Node Type'],
      cond: [node['Index Cond'], node['Recheck Cond'], node.Filter].filter(Boolean).join(' AND '),
    });
  }
  for (const child of node.Plans ?? []) scansOf(child, out);
  return out;
}

const TIME_COLUMNS = /\b(hour|day|month|created_at)\b/;

/**
 * EXPLAIN ANALYZE in a transaction that is rolled back, so writes leave nothing behind. A statement
 * that cannot run again as recorded (an insert whose row now exists) is planned without running.
 */
async function explain(db: Database, sql: string, params: readonly unknown[]) {
  type Plan = { Plan: PlanNode; 'Execution Time'?: number };
  const attempt = async (options: string): Promise<Plan | Error> => {
    let plan: Plan | Error = new Error('no plan');
    await db
      .transaction(async (tx) => {
        try {
          const rows = await tx.query<{ 'QUERY PLAN': [Plan] }>(`EXPLAIN (${options}) ${sql}`, params);
          plan = rows[0]!['QUERY PLAN'][0];
        } catch (error) {
          plan = error as Error;
        }
        throw new Error('roll back');
      })
      .catch(() => {});
    return plan;
  };
  const analyzed = await attempt('ANALYZE, BUFFERS, FORMAT JSON');
  if (!(analyzed instanceof Error)) return analyzed;
  const planned = await attempt('FORMAT JSON');
  if (!(planned instanceof Error)) return planned;
  throw new Error(`could not explain ${sql.slice(0, 80)}: ${planned.message}`);
}

function firstLine(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim().slice(0, 90);
}

async function seed(db: Database): Promise<{ projectIds: string[]; key: string }> {
  const projectIds: string[] = [];
  let key = '';
  for (let p = 0; p < PROJECTS; p++) {
    const project = await createProject(
      db,
      {
        name: `Scale ${p}`,
        repositoryUrl: `https://github.com/example/docs-${p}`,
        model: 'openai:gpt-check',
      },
      TEST_REPOSITORIES,
    );
    projectIds.push(project.id);
    const created = await createKey(db, { projectId: project.id, scope: 'admin' });
    if (p === 0) key = created.key;
  }
  // Hourly rows straight in SQL (the write path is measured elsewhere): every path every hour as
  // human, every third path also as ai.
  await db.query(
    `INSERT INTO page_views_hourly (project_id, hour, path, traffic_class, agent, verification, views)
     SELECT p, to_timestamp($2::double precision / 1000) + h * interval '1 hour', '/page-' || n,
            c, CASE WHEN c = 'ai' THEN 'GPTBot' ELSE '' END, CASE WHEN c = 'ai' THEN 'unverified' ELSE '' END,
            1 + (h * 7 + n) % 13
       FROM unnest($1::text[]) AS p, generate_series(0, $3 - 1) AS h, generate_series(1, $4) AS n,
            unnest(ARRAY['human', 'ai']) AS c
      WHERE c = 'human' OR n % 3 = 0`,
    [projectIds, FIRST_HOUR, DAYS * 24, PATHS],
  );
  // The levels above the hourly rows, filled by migration 0004's own back-fill statements.
  const migration = readFileSync(
    new URL('../db/migrations/0004_analytics_levels_and_rankings.sql', import.meta.url),
    'utf8',
  );
  await db.exec(migration.slice(migration.indexOf('-- Views counted before this migration')));
  await db.query(
    `INSERT INTO jobs (id, project_id, status, prompt, source_repository, source_ref, model, created_at, updated_at,
                       lease_owner, lease_expires_at, completed_at)
     SELECT 'job_check' || i, ($1::text[])[1 + i % cardinality($1::text[])],
            CASE WHEN i > $2 - 40 THEN 'active' WHEN i % 10 = 0 THEN 'failed' WHEN i % 7 = 0 THEN 'archived' ELSE 'completed' END,
            'Prompt ' || i, 'https://github.com/example/docs', 'main', 'openai:gpt-check',
            now() - (($2 - i) * interval '10 seconds'), now() - (($2 - i) * interval '10 seconds'),
            CASE WHEN i > $2 - 10 THEN 'w' END, CASE WHEN i > $2 - 10 THEN now() + interval '1 minute' END,
            CASE WHEN i <= $2 - 40 THEN now() END
       FROM generate_series(1, $2) AS i`,
    [projectIds, JOBS],
  );
  await db.exec('ANALYZE');
  return { projectIds, key };
}

async function main() {
  const scratch = await createPostgresDatabase();
  const db = await openPostgres(scratch.url, { max: 4 });
  try {
    await migrate(db);
    let started = Date.now();
    const { projectIds, key } = await seed(db);
    const [hourly] = await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM page_views_hourly');
    console.log(
      `seeded ${PROJECTS} projects, ${hourly!.n} hourly rows over ${DAYS} days, ${JOBS} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    const log: Statement[] = [];
    let current = '';
    const rec = recording(db, log, () => current);
    const project = projectIds[3]!;
    const from = new Date(NOW - 30 * 24 * HOUR_MS).toISOString().slice(0, 10);
    const to = new Date(NOW).toISOString().slice(0, 13);
    const paths: [string, () => Promise<unknown>][] = [
      [
        'views export, cold (builds the ranking)',
        () => exportPageViews(rec, project, { dateFrom: from, dateTo: `${to}:00:00Z` }),
      ],
      [
        'views export, warm (reads the ranking)',
        () => exportPageViews(rec, project, { dateFrom: from, dateTo: `${to}:00:00Z`, offset: 50 }),
      ],
      [
        'ingest one batch (group commit transaction)',
        () =>
          rec.transaction((tx) =>
            addViews(
              tx,
              ViewSums.ofRows(
                Array.from({ length: 200 }, (_, i) => ({
                  projectId: project,
                  hour: new Date(NOW),
                  path: `/page-${i % PATHS}`,
                  trafficClass: i % 4 === 0 ? ('ai' as const) : ('human' as const),
                  agent: i % 4 === 0 ? 'GPTBot' : '',
                  verification: i % 4 === 0 ? 'unverified' : '',
                  views: 1,
                })),
              ),
            ),
          ),
      ],
      ['get a job', () => getJob(rec, project, `job_check${JOBS - 3 * PROJECTS + 3}`)],
      [
        'list failed jobs',
        () => listJobs(rec, { projectId: project, status: 'failed', limit: 20, cursor: null }),
      ],
      [
        'claim the next job (worker)',
        () => claimNextJob(rec, { owner: 'check', leaseMs: 1000, maxAttempts: 3 }),
      ],
      ['API key check', () => checkKey(rec, key)],
      ['/metrics: jobs by status', () => countJobsByStatus(rec)],
      ['/metrics: job queue', () => selectJobQueue(rec)],
    ];
    for (const [name, run] of paths) {
      current = name;
      await run();
    }

    console.log('\n== hot statements: what they read (EXPLAIN ANALYZE, rolled back)');
    const seen = new Set<string>();
    for (const statement of log) {
      if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)/i.test(statement.sql)) continue;
      if (/pg_advisory|pg_notify/.test(statement.sql) && !/FROM\s+\w/.test(statement.sql)) continue;
      const id = `${statement.path}\0${statement.sql}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const plan = await explain(db, statement.sql, statement.params);
      const scans = scansOf(plan.Plan);
      if (scans.length === 0) continue;
      const ms = plan['Execution Time'];
      const took = ms === undefined ? 'planned, not run' : `${ms.toFixed(1)} ms`;
      console.log(`\n[${statement.path}] ${firstLine(statement.sql)}  (${took})`);
      for (const scan of scans) {
        const project = /project_id = /.test(scan.cond) ? 'project' : '-';
        const time = TIME_COLUMNS.test(scan.cond) ? 'time' : '-';
        console.log(`  ${scan.relation}: ${scan.how} [${project}, ${time}]`);
      }
    }

    console.log('\n== /metrics jobs-by-status cost');
    const timings: number[] = [];
    for (let i = 0; i < 5; i++) {
      started = performance.now();
      await countJobsByStatus(db);
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    console.log(`  ${JOBS} jobs: median ${timings[2]!.toFixed(1)} ms of 5 runs (cached 5 s per process)`);

    await partitionTrial(db, log, projectIds);
  } finally {
    await db.close();
    await scratch.drop();
  }
}

/** page_views_hourly copied into partitioned tables; the recorded statements run against them. */
async function partitionTrial(db: Database, log: Statement[], projectIds: string[]) {
  console.log('\n== declarative partitioning of page_views_hourly');
  const monthOf = (ms: number) =>
    new Date(Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1));
  const months: Date[] = [];
  for (let m = monthOf(FIRST_HOUR); m.getTime() <= NOW + 31 * 24 * HOUR_MS; ) {
    months.push(m);
    m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1));
  }
  const tables = {
    page_views_hourly_by_month: 'PARTITION BY RANGE (hour)',
    page_views_hourly_by_project: 'PARTITION BY HASH (project_id)',
  };
  for (const [table, clause] of Object.entries(tables)) {
    await db.exec(`
      CREATE TABLE ${table} (LIKE page_views_hourly INCLUDING DEFAULTS INCLUDING CONSTRAINTS) ${clause};
      ALTER TABLE ${table} ADD PRIMARY KEY (project_id, hour, path, traffic_class, agent, verification);
      ALTER TABLE ${table} ADD FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE;`);
  }
  for (let i = 0; i < months.length - 1; i++) {
    const name = `page_views_hourly_m${months[i]!.toISOString().slice(0, 7).replace('-', '_')}`;
    await db.exec(
      `CREATE TABLE ${name} PARTITION OF page_views_hourly_by_month
         FOR VALUES FROM ('${months[i]!.toISOString()}') TO ('${months[i + 1]!.toISOString()}')`,
    );
  }
  for (let i = 0; i < 8; i++) {
    await db.exec(
      `CREATE TABLE page_views_hourly_h${i} PARTITION OF page_views_hourly_by_project FOR VALUES WITH (MODULUS 8, REMAINDER ${i})`,
    );
  }
  for (const table of Object.keys(tables)) {
    const started = performance.now();
    await db.exec(`INSERT INTO ${table} SELECT * FROM page_views_hourly; ANALYZE ${table};`);
    console.log(`  ${table}: copied in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  console.log(`  ${months.length - 1} monthly partitions, 8 hash partitions; ${projectIds.length} projects`);

  const onHourly = log.filter((s) => /\bpage_views_hourly\b/.test(s.sql));
  const seen = new Set<string>();
  for (const statement of onHourly) {
    if (seen.has(statement.sql)) continue;
    seen.add(statement.sql);
    for (const table of Object.keys(tables)) {
      const sql = statement.sql.replace(/\bpage_views_hourly\b/g, table);
      const plan = await explain(db, sql, statement.params);
      const scans = scansOf(plan.Plan).filter((s) => s.relation.startsWith('page_views_hourly_'));
      const partitions = new Set(scans.map((s) => s.relation));
      const inserts = /^\s*INSERT/i.test(sql) ? ' (the upsert ran; rolled back)' : '';
      console.log(
        `  [${statement.path}] ${firstLine(statement.sql).slice(0, 60)} on ${table}: reads ${partitions.size} partition(s)${inserts}`,
      );
    }
  }
}

await main();
