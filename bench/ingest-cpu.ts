// The CPU ingestBatch spends per record on the event loop: record checks, classification and
// the sum per rollup key, with a writer stand-in whose submit resolves at once, so neither the
// database nor HTTP is measured. The baseline is JSON.parse of the same bodies in the same run:
// the work Fastify does on every request before ingestBatch sees it, so the ratio says how the
// records' own cost compares with the cost of merely receiving them. The JSON depth limit every
// body is held to at parse time (src/http/request-text.ts) is timed apart and printed too.
//
// The bodies are bench/ingest.ts's, "docs" mix (bench/lib/ingest-bodies.ts): 2,000 pages with
// Zipf popularity, 70% browsers, 20% AI agents, 10% other bots, 500 records per batch.
//
// On a machine shared with other work, wall time per record grows with the load; the thread's
// own CPU time (process.threadCpuUsage) much less: both are printed, the figure stays wall time.
//
// Run: node bench/ingest-cpu.ts [--seconds N]   (prints one `figure:` line)

import { parseArgs } from 'node:util';
import { createClassificationContext } from '../src/modules/analytics/classification/context.ts';
import { ingestBatch } from '../src/modules/analytics/ingest/ingest-batch.ts';
import { CommittedVisitors } from '../src/modules/analytics/store/index.ts';
import { VisitorHasher } from '../src/modules/analytics/store/visitor-ids.ts';
import { exceedsJsonDepth } from '../src/util/json-depth.ts';
import { makeIngestBodies } from './lib/ingest-bodies.ts';
import { standInIngestDeps } from './lib/ingest-stand-in.ts';
import { figureLine } from './lib/stats.ts';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '4' } } });
const SECONDS = Number(args.seconds);
const RECORDS_PER_BATCH = 500;
const BATCHES = 40;

const bodies = makeIngestBodies('docs', BATCHES, RECORDS_PER_BATCH);
const recordsPerPass = BATCHES * RECORDS_PER_BATCH;

let submittedViews = 0;
// The writer's memo of staged visitor ids is kept as the real writer keeps it (visitor-memo.ts).
const deps = standInIngestDeps(
  { createClassificationContext, CommittedVisitors, VisitorHasher },
  { onSubmit: (sums) => (submittedViews += sums.views) },
);

/**
 * Parses each body and hands it to ingestBatch at once, as the endpoint does (so the records are
 * fresh in the CPU's caches), timing the two apart. Returns records per second of each.
 */
async function measure(
  seconds: number,
): Promise<{ parse: number; check: number; ingest: number; parseCpu: number; ingestCpu: number }> {
  let parseNs = 0;
  let checkNs = 0;
  let ingestNs = 0;
  let parseCpuUs = 0;
  let ingestCpuUs = 0;
  let records = 0;
  const start = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - start) / 1e9 < seconds) {
    for (const body of bodies) {
      const c0 = process.threadCpuUsage();
      const t0 = process.hrtime.bigint();
      const items = JSON.parse(body) as unknown[];
      const t1 = process.hrtime.bigint();
      const c1 = process.threadCpuUsage();
      if (exceedsJsonDepth(items)) throw new Error('a bench body is nested too deep');
      const t2 = process.hrtime.bigint();
      const c2 = process.threadCpuUsage();
      await ingestBatch('bench-project', items, deps);
      const t3 = process.hrtime.bigint();
      const c3 = process.threadCpuUsage();
      parseCpuUs += c1.user + c1.system - c0.user - c0.system;
      ingestCpuUs += c3.user + c3.system - c2.user - c2.system;
      parseNs += Number(t1 - t0);
      checkNs += Number(t2 - t1);
      ingestNs += Number(t3 - t2);
    }
    records += recordsPerPass;
  }
  return {
    parse: (records / parseNs) * 1e9,
    check: (records / checkNs) * 1e9,
    ingest: (records / ingestNs) * 1e9,
    parseCpu: parseCpuUs / records,
    ingestCpu: ingestCpuUs / records,
  };
}

// Warm-up: fills the caches and lets the JIT settle before anything is timed.
await measure(1);
// The best of a few rounds: other processes on the machine only ever slow a round down.
let best = { parse: 0, check: 0, ingest: 0, parseCpu: 0, ingestCpu: 0 };
let cpu = { parse: 0, ingest: 0, rounds: 0 };
for (let round = 0; round < 4; round++) {
  const rates = await measure(SECONDS / 4);
  if (rates.ingest > best.ingest) best = rates;
  cpu = { parse: cpu.parse + rates.parseCpu, ingest: cpu.ingest + rates.ingestCpu, rounds: cpu.rounds + 1 };
}
if (submittedViews === 0) throw new Error('the benchmark did no work');
console.log(
  `per record: ingestBatch ${(1e6 / best.ingest).toFixed(3)} µs, JSON.parse ${(1e6 / best.parse).toFixed(3)} µs, depth check ${(1e6 / best.check).toFixed(3)} µs`,
);
console.log(
  `thread CPU per record (mean of the rounds): ingestBatch ${(cpu.ingest / cpu.rounds).toFixed(3)} µs, JSON.parse ${(cpu.parse / cpu.rounds).toFixed(3)} µs`,
);
console.log(figureLine('ingest_cpu_records_per_s', best.ingest, '/s', best.parse));
