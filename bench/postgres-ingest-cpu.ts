// PostgreSQL's own CPU per ingested view, by statement, without HTTP or a load generator: the
// group commit's flow replayed on one connection of a fresh database on the local server, with a
// fixed schedule, so the figures do not depend on how many merges a run of bench/ingest.ts
// happened to make (its merges start when the backlog reaches a bound, and a busy machine moves
// that). The bench's bodies (bench/lib/ingest-bodies.ts, "docs" mix) go through ingestBatch, 15
// requests are summed per group as the writer sums them, each group is staged in its own
// transaction (stageViews, visitor ids the writer has not staged before), the staged rows are
// merged every --merge groups (about the views a merge of bench/ingest.ts covers at 40: its
// merges begin at 500,000 staged views) and visitor ids folded every --fold groups.
//
// The backend's CPU time is read from /proc/<pid>/schedstat around every statement (the server
// must run on this machine) and summed per statement; the server thread's CPU around the same
// calls is printed beside it (the pg client's share of the statement, and what builds its
// parameters inside the call).
//
// Run: node bench/postgres-ingest-cpu.ts [--groups N] [--merge N] [--fold N] [--sql "ALTER ..."]
import { parseArgs } from 'node:util';
import type { Database, Queryable } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { createClassificationContext } from '../src/modules/analytics/classification/context.ts';
import { ingestBatch } from '../src/modules/analytics/ingest/ingest-batch.ts';
import {
  CommittedVisitors,
  foldStagedVisitors,
  stageViews,
  type ViewSums,
} from '../src/modules/analytics/store/index.ts';
import { mergeStagedViews } from '../src/modules/analytics/store/staged-views.ts';
import { VisitorHasher } from '../src/modules/analytics/store/visitor-ids.ts';
import { createProject } from '../src/modules/projects/service.ts';
import { createPostgresDatabase } from '../test/helpers/databases.ts';
import { makeIngestBodies } from './lib/ingest-bodies.ts';
import { standInIngestDeps } from './lib/ingest-stand-in.ts';
import { cpuUsOf } from './lib/postgres-cpu.ts';

const { values: args } = parseArgs({
  options: {
    groups: { type: 'string', default: '400' },
    merge: { type: 'string', default: '40' },
    fold: { type: 'string', default: '130' },
    // Settings to try (run after the migrations), e.g. "ALTER TABLE page_views_hourly SET (fillfactor = 100)".
    sql: { type: 'string', default: '' },
  },
});
const GROUPS = Number(args.groups);
const REQUESTS_PER_GROUP = 15;
const bodies = makeIngestBodies('docs', 40, 500);

const created = await createPostgresDatabase();
const db = await openPostgres(created.url, { max: 1 });
try {
  await migrate(db);
  if (args.sql !== '') await db.exec(args.sql);
  const project = await createProject(
    db,
    { name: 'Bench', repositoryUrl: 'https://github.com/example/docs' },
    { allowPrivateAddresses: true },
  );
  // Each request's sums, as ingestBatch hands them to the writer.
  const requestSums: ViewSums[] = [];
  // A memo nothing is ever committed to: no request leaves an id out (the replay stages them).
  const deps = standInIngestDeps(
    { createClassificationContext, CommittedVisitors, VisitorHasher },
    { onSubmit: (sums) => requestSums.push(sums), commitVisitors: false },
  );
  for (let i = 0; i < GROUPS * REQUESTS_PER_GROUP; i++)
    await ingestBatch(project.id, JSON.parse(bodies[i % bodies.length]!), deps);

  const [{ pid }] = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
  const byStatement = new Map<string, { count: number; backendUs: number; threadUs: number }>();
  const threadUs = () => {
    const c = process.threadCpuUsage();
    return c.user + c.system;
  };
  const timed = <Q extends Queryable>(q: Q): Q => {
    const query = q.query.bind(q);
    return Object.assign(Object.create(q) as Q, {
      query: async (sql: string, params?: readonly unknown[]) => {
        const backend = cpuUsOf(pid)!;
        const thread = threadUs();
        try {
          return await query(sql, params);
        } finally {
          const kind = sql.replace(/\s+/g, ' ').trim().slice(0, 64);
          const entry = byStatement.get(kind) ?? { count: 0, backendUs: 0, threadUs: 0 };
          entry.count++;
          entry.backendUs += cpuUsOf(pid)! - backend;
          entry.threadUs += threadUs() - thread;
          byStatement.set(kind, entry);
        }
      },
    });
  };
  const measured: Database = timed(db);
  measured.transaction = (fn) => db.transaction((tx) => fn(timed(tx)));

  const committed = new CommittedVisitors();
  let known = new Map<number, ViewSums>();
  let views = 0;
  const start = cpuUsOf(pid)!;
  for (let g = 0; g < GROUPS; g++) {
    const sums = requestSums[g * REQUESTS_PER_GROUP]!;
    for (let i = 1; i < REQUESTS_PER_GROUP; i++) sums.addSums(requestSums[g * REQUESTS_PER_GROUP + i]!);
    const visitors = committed.unseen(sums.visitors);
    const id = await measured.transaction((tx) => stageViews(tx, sums, visitors));
    committed.committed(visitors);
    known.set(id, sums);
    views += sums.views;
    if ((g + 1) % Number(args.merge) === 0) {
      await mergeStagedViews(measured, known);
      known = new Map();
    }
    if ((g + 1) % Number(args.fold) === 0) await foldStagedVisitors(measured);
  }
  await mergeStagedViews(measured, known);
  await foldStagedVisitors(measured);
  const per1000 = (us: number) => ((us / views) * 1000).toFixed(0);
  console.log(
    `${views} views in ${GROUPS} groups: PostgreSQL backend CPU ${per1000(cpuUsOf(pid)! - start)} µs per 1,000 views` +
      (args.sql === '' ? '' : ` (with ${args.sql})`),
  );
  console.log('  backend µs / 1,000 views (server thread) | statements × backend µs each | statement');
  for (const [kind, e] of [...byStatement].sort((a, b) => b[1].backendUs - a[1].backendUs)) {
    if ((e.backendUs / views) * 1000 < 2) continue;
    console.log(
      `  ${per1000(e.backendUs).padStart(5)} (${per1000(e.threadUs).padStart(4)}) | ${e.count} × ${(e.backendUs / e.count).toFixed(0)} | ${kind}`,
    );
  }
} finally {
  await db.close();
  await created.drop();
}
