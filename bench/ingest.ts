// Ingest throughput through the HTTP batch endpoint (auth, per-record checks, classification,
// group commit, answer after commit), against a bare Fastify endpoint that parses the same
// 500-record JSON batches and does nothing else, both driven in the same run by the same
// keep-alive load generator (bench/ingest-load.ts, in a worker thread). On PostgreSQL (a fresh
// database on the local server) and on PGlite (a data directory on /dev/shm).
//
// The bare endpoint only parses. Ingest also checks and classifies every record and waits for
// the group commit, which appends the group's views to page_views_staged; the writer's merger
// folds them into the rollups about once a second, in the same process, during the measured
// window. The line before the figures says how many commits served how many requests, how many
// views were still waiting to be merged when the load stopped and how long merging them took, as
// the first export after the load does (a backlog that stays within a few seconds of ingest means
// the rate is sustained, not borrowed; the time is what that first read waits), and checks that
// the views stored equal the views acknowledged.
//
// Bare and ingest take turns (--rounds, 3 by default, --seconds each, 5 by default), so the slow
// spells of a shared machine fall on both; the figure divides the totals over all rounds. The
// servers run on the main thread and the load in a worker, so the main thread's own CPU time
// (process.threadCpuUsage) over a load is what serving it cost: printed per 1,000 events for
// each, with their ratio, which a busy machine disturbs far less than the rates (PGlite's
// database work is in it; a PostgreSQL server's is not: where that server runs on this machine,
// its processes' CPU per 1,000 events is printed too, bench/lib/postgres-cpu.ts). A last line
// adds up the machine: the server thread, the load generator's thread (its whole life), the
// process's other threads (V8's GC helpers, libuv's pool) and PostgreSQL's backends.
//
// Run: node bench/ingest.ts [--engine postgres|pglite|both] [--mix docs|distinct|formats] [--seconds N]
//      [--rounds N] [--connections N] [--commits N] [--statements] [--bare-parse default|pieces]
// Prints the machine's CPU model first, then one `figure:` line per engine; ends in about a
// minute with the defaults.

import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite } from '../src/db/pglite.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { buildApp } from '../src/http/app.ts';
import { parseJsonArrayInPieces } from '../src/modules/analytics/ingest/body-pieces.ts';
import { GroupCommitWriter } from '../src/modules/analytics/ingest/group-commit.ts';
import { mergeStagedViews } from '../src/modules/analytics/store/staged-views.ts';
import { createKey } from '../src/modules/keys/service.ts';
import { createProject } from '../src/modules/projects/service.ts';
import { createLogger } from '../src/util/logger.ts';
import { createPostgresDatabase } from '../test/helpers/databases.ts';
import type { LoadResult, LoadSpec } from './ingest-load.ts';
import { makeIngestBodies } from './lib/ingest-bodies.ts';
import { formatStatementTimes, timePgliteStatements } from './lib/pglite-statement-times.ts';
import { type PostgresCpu, startPostgresCpu } from './lib/postgres-cpu.ts';
import { countRollupWrites } from './lib/rollup-writes.ts';

/** The benchmark's repositories are local: DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE=true. */
const TEST_REPOSITORIES = { allowPrivateAddresses: true };

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'both' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    commits: { type: 'string' },
    mix: { type: 'string', default: 'docs' },
    'bare-parse': { type: 'string', default: 'default' },
    // PGlite only: time its statements by kind (bench/lib/pglite-statement-times.ts).
    statements: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);
const RECORDS_PER_BATCH = 500;
const BATCHES = 40;
const BODY_LIMIT = 1024 * 1024;

// The batches and their --mix: bench/lib/ingest-bodies.ts.

// The main thread's garbage collection pauses (ms), summed: a share of its CPU the records'
// garbage and survivors decide (docs/ingestion.md, seventh round). Only this thread's collections
// are observed here, not the load generator's.
let serverGcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) serverGcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

/** The load's result, and the main thread's CPU time (µs) and GC pauses (µs) while it ran: the server's. */
function load(
  spec: LoadSpec,
): Promise<
  LoadResult & { serverCpuUs: number; serverSystemUs: number; serverGcUs: number; processCpuUs: number }
> {
  const before = process.threadCpuUsage();
  const processBefore = process.cpuUsage();
  const gcBefore = serverGcMs;
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./ingest-load.ts', import.meta.url), { workerData: spec });
    worker.once('message', (result: LoadResult) => {
      const after = process.threadCpuUsage();
      const processCpu = process.cpuUsage(processBefore);
      resolve({
        processCpuUs: processCpu.user + processCpu.system,
        ...result,
        serverCpuUs: after.user + after.system - before.user - before.system,
        serverSystemUs: after.system - before.system,
        serverGcUs: (serverGcMs - gcBefore) * 1000,
      });
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

async function listen(app: { listen: (o: object) => Promise<string>; server: { address(): unknown } }) {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/**
 * The baseline: Fastify's own JSON parser on the same bodies, and nothing else. With
 * --bare-parse pieces it parses as ingest does (src/modules/analytics/ingest/body-pieces.ts), so
 * a run can tell how much of ingest's ratio is its cheaper parse and how much its own work.
 */
async function startBare() {
  const bare = Fastify({ bodyLimit: BODY_LIMIT });
  if (args['bare-parse'] === 'pieces') {
    bare.removeContentTypeParser('application/json');
    bare.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
      const bytes = body as Buffer;
      done(null, parseJsonArrayInPieces(bytes) ?? JSON.parse(bytes.toString('utf8')));
    });
  } else if (args['bare-parse'] !== 'default') {
    throw new Error(`--bare-parse is default or pieces, not ${args['bare-parse']}`);
  }
  bare.post('/bare', async (request) => ({ records: (request.body as unknown[]).length }));
  const url = await listen(bare);
  const spec: LoadSpec = {
    url: `${url}/bare`,
    headers: { 'content-type': 'application/json' },
    bodies: [],
    recordsPerBody: RECORDS_PER_BATCH,
    connections: CONNECTIONS,
    warmupMs: 1500,
    durationMs: SECONDS * 1000,
    expectStatus: 200,
  };
  return { spec, close: () => bare.close() };
}

/** The ingest endpoint on `db`, with an ingest key of a new project. */
async function startIngest(db: Database) {
  const project = await createProject(
    db,
    {
      name: 'Bench',
      repositoryUrl: 'https://github.com/example/docs',
    },
    TEST_REPOSITORIES,
  );
  const key = (await createKey(db, { projectId: project.id, scope: 'ingest' })).key;
  const writer = new GroupCommitWriter(
    db,
    args.commits === undefined ? {} : { maxConcurrentCommits: Number(args.commits) },
  );
  const app = await buildApp({
    db,
    logger: createLogger('silent'),
    config: { jobRateLimitPerHour: 100, defaultModel: null, publicUrl: 'http://127.0.0.1:0' },
    ingest: { writer },
  });
  const url = await listen(app);
  const spec: LoadSpec = {
    url: `${url}/v1/analytics/${project.id}/events`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    bodies: [],
    recordsPerBody: RECORDS_PER_BATCH,
    connections: CONNECTIONS,
    warmupMs: 3000,
    durationMs: SECONDS * 1000,
    expectStatus: 202,
  };
  /**
   * Closes the app (which commits what still waits, then merges what is staged) and says what
   * the background merger had not merged when the load stopped and how long merging it took: a
   * backlog that stays small means the rate measured is sustainable.
   */
  const close = async () => {
    const stagedAtEnd = writer.stats.stagedViews;
    // What the first export after the load pays: it merges whatever is staged before it reads.
    const reading = performance.now();
    await mergeStagedViews(db);
    const readMergeMs = performance.now() - reading;
    const closing = performance.now();
    await app.close();
    const closeMs = performance.now() - closing;
    const [stored] = await db.query<{ views: number }>(
      'SELECT coalesce(sum(views), 0)::bigint AS views FROM page_views_hourly WHERE project_id = $1',
      [project.id],
    );
    return { stats: writer.stats, stored: Number(stored!.views), stagedAtEnd, readMergeMs, closeMs };
  };
  return { spec, close };
}

const unexpectedText = (result: LoadResult) =>
  Object.keys(result.unexpected).length ? ` (unexpected ${JSON.stringify(result.unexpected)})` : '';

/**
 * Bare and ingest take turns, ROUNDS times, so a slow spell of this shared machine falls on both
 * alike; the figure is the total of each over all rounds (the rounds' own ratios are printed too).
 */
async function measure(db: Database, bodies: string[], pgCpu: PostgresCpu | null) {
  const bare = await startBare();
  const ingest = await startIngest(db);
  const emptyTotal = () => ({
    events: 0,
    seconds: 0,
    requests: 0,
    cpuUs: 0,
    systemUs: 0,
    gcUs: 0,
    served: 0,
    loadCpuUs: 0,
    processCpuUs: 0,
  });
  const totals = { bare: emptyTotal(), ingest: emptyTotal() };
  const ratios: number[] = [];
  let notes = '';
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Warm-up only in the first round: the servers stay up between rounds.
      const warm = round === 0 ? {} : { warmupMs: 300 };
      const baseline = await load({ ...bare.spec, ...warm, bodies });
      await pgCpu?.sample();
      const result = await load({ ...ingest.spec, ...warm, bodies });
      await pgCpu?.sample();
      notes += unexpectedText(baseline) + unexpectedText(result);
      for (const [total, r] of [
        [totals.bare, baseline],
        [totals.ingest, result],
      ] as const) {
        total.events += r.events;
        total.seconds += r.seconds;
        total.requests += r.requests;
        total.cpuUs += r.serverCpuUs;
        total.systemUs += r.serverSystemUs;
        total.gcUs += r.serverGcUs;
        total.loadCpuUs += r.cpuUs;
        total.processCpuUs += r.processCpuUs;
        total.served += r.servedEvents;
      }
      ratios.push(result.events / result.seconds / (baseline.events / baseline.seconds));
    }
  } finally {
    await bare.close();
  }
  const closed = await ingest.close();
  await pgCpu?.sample();
  return { totals, ratios, notes, ...closed };
}

if (args.mix !== 'docs' && args.mix !== 'distinct' && args.mix !== 'formats')
  throw new Error('--mix must be docs, distinct or formats');
const bodies = makeIngestBodies(args.mix, BATCHES, RECORDS_PER_BATCH);
const fmt = (value: number) => Math.round(value).toString();
const engines = args.engine === 'both' ? ['postgres', 'pglite'] : [args.engine!];
const figures: string[] = [];
// The ratio depends on the machine, not only on the code (docs/ingestion.md, "The machine
// matters"): each run says which one it measured.
const cores = cpus();
console.log(`machine: ${cores[0]?.model ?? 'unknown CPU'}, ${cores.length} cores, Node ${process.version}`);
const statementTimes = args.statements ? timePgliteStatements() : null;

for (const engine of engines) {
  let db: Database;
  let cleanup: () => Promise<void>;
  if (engine === 'postgres') {
    const created = await createPostgresDatabase();
    const pool = await openPostgres(created.url);
    db = pool;
    cleanup = async () => {
      await pool.close();
      await created.drop();
    };
  } else if (engine === 'pglite') {
    const dir = mkdtempSync(join('/dev/shm', 'dw-bench-'));
    const embedded = await openPglite(join(dir, 'pgdata'));
    db = embedded;
    cleanup = async () => {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    throw new Error(`--engine must be postgres, pglite or both; got ${engine}`);
  }
  try {
    await migrate(db);
    statementTimes?.clear();
    const { db: countedDb, writes } = countRollupWrites(db);
    // PostgreSQL's processes, where they run on this machine (bench/lib/postgres-cpu.ts).
    const pgCpu = engine === 'postgres' ? await startPostgresCpu(db) : null;
    const { totals, ratios, notes, stats, stored, stagedAtEnd, readMergeMs, closeMs } = await measure(
      countedDb,
      bodies,
      pgCpu,
    );
    const baseRate = totals.bare.events / totals.bare.seconds;
    const rate = totals.ingest.events / totals.ingest.seconds;
    console.log(
      `${engine} (${CONNECTIONS} connections, mix ${args.mix}, load average ${loadavg()[0]!.toFixed(1)}): ` +
        `${ROUNDS} rounds of ${SECONDS} s each: bare ${totals.bare.requests} requests, ingest ${totals.ingest.requests} requests${notes}; ` +
        `ratio per round ${ratios.map((r) => r.toFixed(2)).join(', ')}; ` +
        `${stats.commits} commits for ${stats.committedRequests} requests ` +
        `(${(stats.committedRequests / Math.max(1, stats.commits)).toFixed(1)} per commit), ` +
        `${stats.committedViews} views committed, ${stored} stored, ${stats.overloadRefusals} refused; ` +
        `${stagedAtEnd} views not merged yet when the load stopped, merged by a read in ${Math.round(readMergeMs)} ms ` +
        `(then closing took ${Math.round(closeMs)} ms)`,
    );
    // Merge work: hourly rows written per 1,000 events committed (the final merge included).
    console.log(
      `${engine} merges wrote ${writes.rows} hourly rollup rows in ${writes.statements} statements: ` +
        `${((writes.rows / Math.max(1, stats.committedViews)) * 1000).toFixed(1)} per 1,000 events`,
    );
    // Over every event served (warm-ups included: their CPU is in the time too).
    const bareCpu = (totals.bare.cpuUs / totals.bare.served) * 1000;
    const ingestCpu = (totals.ingest.cpuUs / totals.ingest.served) * 1000;
    // The kernel's part (socket reads and writes, mostly) weighs differently on different CPUs
    // and hypervisors, and bare is mostly that: it is what moves the ratio between machines.
    const kernelPart = (total: { cpuUs: number; systemUs: number }) =>
      `${Math.round((total.systemUs / total.cpuUs) * 100)}% in the kernel`;
    console.log(
      `${engine} server thread CPU per 1,000 events: bare ${bareCpu.toFixed(0)} µs (${kernelPart(totals.bare)}), ` +
        `ingest ${ingestCpu.toFixed(0)} µs (${kernelPart(totals.ingest)}); ratio (bare / ingest) ${(bareCpu / ingestCpu).toFixed(2)}`,
    );
    const perThousand = (total: { gcUs: number; served: number }) =>
      ((total.gcUs / total.served) * 1000).toFixed(0);
    console.log(
      `${engine} server thread GC pauses per 1,000 events: bare ${perThousand(totals.bare)} µs, ingest ${perThousand(totals.ingest)} µs`,
    );
    // Over the whole run (the merges of bare rounds and the final merge too), per event committed.
    if (pgCpu !== null) {
      const per1000 = (us: number) => ((us / Math.max(1, stats.committedViews)) * 1000).toFixed(0);
      console.log(
        `${engine} PostgreSQL CPU per 1,000 events: its backends ${per1000(pgCpu.totals.backendsUs)} µs ` +
          `(background processes ${per1000(pgCpu.totals.backgroundUs)} µs, shared with other databases)`,
      );
    }
    // The whole machine's CPU per event, by whom: on a 2-core machine that runs the load too, the
    // rate ratio cannot exceed the ratio of these sums once both cores are busy.
    const perEvent = (us: number, events: number) => (us / events) * 1000;
    const side = (total: (typeof totals)['bare'], backendsUs: number) => {
      const server = perEvent(total.cpuUs, total.served);
      const loadGenerator = perEvent(total.loadCpuUs, total.served);
      const otherThreads = perEvent(total.processCpuUs, total.served) - server - loadGenerator;
      return { server, loadGenerator, otherThreads, all: server + loadGenerator + otherThreads + backendsUs };
    };
    const backends =
      pgCpu === null ? 0 : perEvent(pgCpu.totals.backendsUs, Math.max(1, stats.committedViews));
    const bareSide = side(totals.bare, 0);
    const ingestSide = side(totals.ingest, backends);
    const pair = (key: 'server' | 'loadGenerator' | 'otherThreads') =>
      `${bareSide[key].toFixed(0)} / ${ingestSide[key].toFixed(0)}`;
    console.log(
      `${engine} machine CPU per 1,000 events, bare / ingest: server thread ${pair('server')} µs, ` +
        `load generator ${pair('loadGenerator')} µs, the process's other threads ${pair('otherThreads')} µs` +
        (pgCpu === null ? '' : `, PostgreSQL backends 0 / ${backends.toFixed(0)} µs`) +
        `; in all ${bareSide.all.toFixed(0)} / ${ingestSide.all.toFixed(0)} µs (ratio ${(bareSide.all / ingestSide.all).toFixed(2)})`,
    );
    if (statementTimes !== null && engine === 'pglite')
      console.log(formatStatementTimes(statementTimes, stats.committedViews));
    figures.push(
      `figure: ingest_events_per_s_${engine}${args.mix === 'docs' ? '' : `_${args.mix}`} = ${fmt(rate)} /s; baseline = ${fmt(baseRate)} /s; ratio = ${(rate / baseRate).toFixed(2)}`,
    );
  } finally {
    await cleanup();
  }
}
for (const line of figures) console.log(line);
