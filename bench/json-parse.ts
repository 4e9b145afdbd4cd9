// The ingest route's JSON parsing against Fastify's default JSON parser, on the 500-record
// batches of bench/ingest.ts. Fastify's parser (secure-json-parse) runs JSON.parse and then scans
// the whole text with two regular expressions for "__proto__" and "constructor" keys; the ingest
// route runs JSON.parse alone (routes.ts says why). Both take turns, --rounds times, on the same
// thread, and the figure is their ratio of thread CPU time, which a busy machine disturbs less
// than the time itself.
//
// Run: node bench/json-parse.ts [--rounds N] [--bodies N]
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { makeIngestBodies } from './lib/ingest-bodies.ts';

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '6' }, bodies: { type: 'string', default: '400' } },
});
const ROUNDS = Number(args.rounds);
const PER_ROUND = Number(args.bodies);
const bodies = makeIngestBodies('docs', 40, 500);

const fastifyParser = Fastify().getDefaultJsonParser('error', 'error');
const parsers: Record<string, (text: string) => unknown> = {
  fastify: (text) => {
    let parsed: unknown;
    // The parser calls back synchronously.
    fastifyParser({} as never, text, (error, value) => {
      if (error) throw error;
      parsed = value;
    });
    return parsed;
  },
  'JSON.parse': (text) => JSON.parse(text),
};

const cpuUs: Record<string, number> = { fastify: 0, 'JSON.parse': 0 };
let sink = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, parse] of Object.entries(parsers)) {
    const before = process.threadCpuUsage();
    for (let i = 0; i < PER_ROUND; i++) sink += (parse(bodies[i % bodies.length]!) as unknown[]).length;
    const after = process.threadCpuUsage();
    cpuUs[name]! += after.user + after.system - before.user - before.system;
  }
}
const perBody = (name: string) => cpuUs[name]! / (ROUNDS * PER_ROUND);
console.log(
  `per 500-record body (${(bodies[0]!.length / 1024).toFixed(0)} KiB), thread CPU: ` +
    `Fastify's parser ${perBody('fastify').toFixed(0)} µs, JSON.parse ${perBody('JSON.parse').toFixed(0)} µs (${sink} records)`,
);
console.log(`figure: json_parse_cpu_ratio = ${(perBody('JSON.parse') / perBody('fastify')).toFixed(2)}`);
