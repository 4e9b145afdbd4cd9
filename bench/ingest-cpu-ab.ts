// ingestBatch of two checkouts in one process, their rounds alternated: for changes to ingest's
// per-record CPU too small for bench/ingest-cpu.ts to show. Two runs of that bench, one per
// checkout, differ by 10-20% on a shared machine (their ratios against JSON.parse as well); here
// both checkouts meet the same load, round by round, and their means differ by a few percent
// when nothing changed (docs/ingestion.md, sixth round). Run it in both orders: the first
// checkout tends to fare slightly worse.
//
// Each checkout is imported from its own path (its own module instances, caches and memos), with
// the writer stand-in of bench/ingest-cpu.ts (bench/lib/ingest-stand-in.ts, built of the
// checkout's own classes) and the same bodies (docs mix, 40 batches of 500).
// A round parses every body (not timed) and times ingestBatch's thread CPU over them.
//
// With --group N the stand-in sums every N requests as the writer's group commit does
// (ViewSums.addSums, then the memo's unseen()), so that merge is timed too. Scavenges (young
// generation collections) per 1,000 batches are counted per side: a scavenge is charged to the
// side whose pass it fell in.
//
// Run: node bench/ingest-cpu-ab.ts /path/to/checkout-a /path/to/checkout-b [--rounds N] [--group N[,M]]

import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { makeIngestBodies } from './lib/ingest-bodies.ts';
import { checkoutIngest } from './lib/ingest-stand-in.ts';

const { values: args, positionals: checkouts } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '120' }, group: { type: 'string', default: '1' } },
});
if (checkouts.length !== 2) throw new Error('give two checkouts: node bench/ingest-cpu-ab.ts A B');
const ROUNDS = Number(args.rounds);
// One number for both sides, or two (first,second): a prototype that sums its groups itself is
// handed a stand-in that does not.
const GROUPS = args.group.split(',').map(Number);
const WARM_ROUNDS = 10;
const RECORDS = 40 * 500;
const bodies = makeIngestBodies('docs', 40, 500);

interface Side {
  checkout: string;
  run(items: unknown[]): Promise<unknown>;
  cpu: number[];
  scavenges: number;
}

async function sideOf(checkout: string, group: number): Promise<Side> {
  const { ingestBatch, deps } = await checkoutIngest(checkout, { groupRequests: group });
  return { checkout, run: (items) => ingestBatch('bench-project', items, deps), cpu: [], scavenges: 0 };
}

// Scavenge start times, and each timed pass's window: observer entries arrive later, so they are
// charged to the side whose window holds their start.
const scavengeTimes: number[] = [];
const windows: { side: Side; start: number; end: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (
      (entry as unknown as { detail: { kind: number } }).detail.kind === constants.NODE_PERFORMANCE_GC_MINOR
    )
      scavengeTimes.push(entry.startTime);
}).observe({ entryTypes: ['gc'] });

/** Thread CPU µs per record of one pass over the bodies. */
async function pass(side: Side, timed = true): Promise<number> {
  const start = performance.now();
  let us = 0;
  for (const body of bodies) {
    const items = JSON.parse(body) as unknown[];
    const before = process.threadCpuUsage();
    await side.run(items);
    const after = process.threadCpuUsage();
    us += after.user + after.system - before.user - before.system;
  }
  if (timed) windows.push({ side, start, end: performance.now() });
  return us / RECORDS;
}

const sides = [await sideOf(checkouts[0]!, GROUPS[0]!), await sideOf(checkouts[1]!, GROUPS[1] ?? GROUPS[0]!)];
for (let round = 0; round < WARM_ROUNDS; round++) for (const side of sides) await pass(side, false);
// Alternated, and each pair in the other order from the last, so neither side always goes first.
for (let round = 0; round < ROUNDS; round++)
  for (const side of round % 2 === 0 ? sides : [...sides].reverse()) side.cpu.push(await pass(side));

await new Promise((resolve) => setTimeout(resolve, 100));
for (const at of scavengeTimes) {
  const found = windows.find((w) => w.start <= at && at <= w.end);
  if (found !== undefined) found.side.scavenges++;
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
for (const side of sides) {
  const sorted = [...side.cpu].sort((a, b) => a - b);
  console.log(
    `${side.checkout}: thread CPU per record, mean ${mean(side.cpu).toFixed(3)} µs, median ${sorted[sorted.length >> 1]!.toFixed(3)} µs; scavenges per 1,000 batches ${((side.scavenges / (ROUNDS * bodies.length)) * 1000).toFixed(1)}`,
  );
}
console.log(`second / first, means: ${(mean(sides[1]!.cpu) / mean(sides[0]!.cpu)).toFixed(3)}`);
