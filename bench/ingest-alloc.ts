// Bytes ingestBatch allocates per record, by site: V8's sampling heap profiler with the objects
// that scavenges collected included (most of what a batch allocates dies young), over passes of
// bench/ingest-cpu-ab.ts's bodies. Each pass's bodies are parsed before sampling starts, so
// JSON.parse's records are not counted; the stand-in writer's group merge is (--group N: the
// writer's ViewSums.addSums and unseen() per N requests, as the real group commit does).
//
// Sampling is statistical (one sample per --interval bytes on average): compare sides by runs of
// their own, several each; the per-site figures say where the bytes go, not to the byte.
//
// Run: node bench/ingest-alloc.ts /path/to/checkout [--passes N] [--group N] [--interval B]

import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { makeIngestBodies } from './lib/ingest-bodies.ts';
import { checkoutIngest } from './lib/ingest-stand-in.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    passes: { type: 'string', default: '20' },
    group: { type: 'string', default: '1' },
    interval: { type: 'string', default: '256' },
  },
});
const checkout = positionals[0];
if (checkout === undefined) throw new Error('give a checkout: node bench/ingest-alloc.ts /path/to/checkout');
const PASSES = Number(args.passes);
const bodies = makeIngestBodies('docs', 40, 500);
const RECORDS = 40 * 500;

const { ingestBatch, deps } = await checkoutIngest(checkout, { groupRequests: Number(args.group) });

async function pass(): Promise<void> {
  const parsed = bodies.map((body) => JSON.parse(body) as unknown[]);
  for (const items of parsed) await ingestBatch('bench-project', items, deps);
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
  id: number;
}
interface Sample {
  size: number;
  nodeId: number;
}

// Warm: the optimised code is what the server runs.
for (let i = 0; i < 10; i++) await pass();

const session = new Session();
session.connect();
const bySite = new Map<string, number>();
let total = 0;
for (let i = 0; i < PASSES; i++) {
  const parsed = bodies.map((body) => JSON.parse(body) as unknown[]);
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(args.interval),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (const items of parsed) await ingestBatch('bench-project', items, deps);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as {
    profile: { head: SamplingNode; samples: Sample[] };
  };
  const nodes = new Map<number, SamplingNode>();
  const walk = (node: SamplingNode) => {
    nodes.set(node.id, node);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  for (const sample of profile.samples) {
    const frame = nodes.get(sample.nodeId)?.callFrame;
    if (frame === undefined) continue; // a node the profile left out
    const file = frame.url.split('/').slice(-1)[0] ?? '';
    const site = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + sample.size);
    total += sample.size;
  }
}
session.disconnect();

const perRecord = (bytes: number) => bytes / (PASSES * RECORDS);
console.log(`${checkout}: ${perRecord(total).toFixed(1)} bytes per record (group ${args.group})`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 12))
  console.log(`  ${perRecord(bytes).toFixed(1).padStart(6)}  ${site}`);
