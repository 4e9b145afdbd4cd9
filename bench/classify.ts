// User-agent classification throughput with the cache warm, against isbot alone on the same
// strings, measured in the same run. isbot is the baseline because it is the per-request work the
// cache exists to avoid: without the cache every record would pay for isbot's pattern plus the
// agent-token scan; with it, a record pays one Map lookup and a move to the LRU tail. The ratio
// says how much the cache buys. A second line reports the whole pipeline (all six steps, no
// signature headers) for context, with no baseline.
//
// Run: node bench/classify.ts   (prints `figure:` lines; ends in about ten seconds)

import { isbot } from 'isbot';
import { createClassificationContext } from '../src/modules/analytics/classification/context.ts';
import { classifyRecord } from '../src/modules/analytics/classification/pipeline.ts';
import type { RequestRecord } from '../src/modules/analytics/classification/types.ts';
import { USER_AGENT_CASES } from '../test/analytics/fixtures/user-agents.ts';

// 2,000 distinct strings: the real ones from the test table with varied version numbers, as a
// docs site sees them over a day.
const DISTINCT = 2000;
const userAgents: string[] = [];
for (let i = 0; userAgents.length < DISTINCT; i++) {
  const base = USER_AGENT_CASES[i % USER_AGENT_CASES.length]!.userAgent;
  userAgents.push(
    base.replace(/\d+(?=\.)/, (major) => String(Number(major) + Math.floor(i / USER_AGENT_CASES.length))),
  );
}
const distinct = new Set(userAgents).size;

function rate(label: string, iterations: number, run: (i: number) => unknown): number {
  let sink = 0;
  // Warm-up pass: fills caches and lets the JIT settle.
  for (let i = 0; i < Math.min(iterations, 200_000); i++) if (run(i)) sink++;
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) if (run(i)) sink++;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    best = Math.max(best, iterations / seconds);
  }
  if (sink < 0) console.log(label); // keeps the loop from being optimised away
  return best;
}

const context = createClassificationContext({ webBotAuth: false });
const n = userAgents.length;

const isbotRate = rate('isbot', 300_000, (i) => isbot(userAgents[i % n]!));
const warmRate = rate('classify', 3_000_000, (i) => context.userAgents.classify(userAgents[i % n]!).browser);

const records: RequestRecord[] = userAgents.map((userAgent, i) => ({
  url: `https://docs.example/guide/page-${i % 300}/?ref=x`,
  userAgent,
  ip: '203.0.113.7',
  method: 'GET',
  status: 200,
}));
let pipelineDone = 0;
const pipelineStart = process.hrtime.bigint();
const PIPELINE_RECORDS = 400_000;
for (let i = 0; i < PIPELINE_RECORDS; i++) {
  const outcome = await classifyRecord(records[i % n]!, context);
  if (!('drop' in outcome)) pipelineDone++;
}
const pipelineRate = PIPELINE_RECORDS / (Number(process.hrtime.bigint() - pipelineStart) / 1e9);

const fmt = (value: number) => Math.round(value).toString();
console.log(
  `distinct user agents: ${distinct}; cache misses: ${context.userAgents.misses}; pipeline views: ${pipelineDone}`,
);
console.log(
  `figure: classify_warm = ${fmt(warmRate)} /s; baseline = ${fmt(isbotRate)} /s; ratio = ${(warmRate / isbotRate).toFixed(2)}`,
);
console.log(`figure: classify_record_pipeline = ${fmt(pipelineRate)} /s; baseline = none; ratio = none`);
