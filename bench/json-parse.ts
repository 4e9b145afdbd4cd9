// The ingest route's JSON parsing against Fastify's default JSON parser, on the 500-record
// batches of bench/ingest.ts. Fastify's parser (secure-json-parse) runs JSON.parse and then scans
// the whole text with two regular expressions for "__proto__" and "constructor" keys; the ingest
// route runs JSON.parse alone (routes.ts says why). Both take turns, --rounds times, on the same
// thread, and the figure is their ratio of thread CPU time, which a busy machine disturbs less
// than the time itself.
//
// A second figure starts from the body's bytes, as the route does: decoding the whole body into
// one string and parsing it, against decoding and parsing it in pieces below V8's large-object
// limit (src/modules/analytics/ingest/body-pieces.ts). Thread CPU here includes the kernel's
// work of mapping and unmapping each large string.
//
// Run: node bench/json-parse.ts [--rounds N] [--bodies N]
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { parseJsonArrayInPieces } from '../src/modules/analytics/ingest/body-pieces.ts';
import { makeIngestBodies } from './lib/ingest-bodies.ts';

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '6' }, bodies: { type: 'string', default: '400' } },
});
const ROUNDS = Number(args.rounds);
const PER_ROUND = Number(args.bodies);
const bodies = makeIngestBodies('docs', 40, 500);
const bodyBytes = bodies.map((text) => Buffer.from(text));

const fastifyParser = Fastify().getDefaultJsonParser('error', 'error');
// Each takes the body's index. The text parsers take turns on their own, as they always have, so
// the first figure is measured as before; the byte parsers then take turns the same way.
const textParsers: Record<string, (body: number) => unknown> = {
  fastify: (body) => {
    let parsed: unknown;
    // The parser calls back synchronously.
    fastifyParser({} as never, bodies[body]!, (error, value) => {
      if (error) throw error;
      parsed = value;
    });
    return parsed;
  },
  'JSON.parse': (body) => JSON.parse(bodies[body]!),
};
const byteParsers: Record<string, (body: number) => unknown> = {
  'bytes whole': (body) => JSON.parse(bodyBytes[body]!.toString('utf8')),
  'bytes in pieces': (body) => parseJsonArrayInPieces(bodyBytes[body]!),
};

const cpuUs: Record<string, number> = {};
const kernelUs: Record<string, number> = {};
let sink = 0;
for (const parsers of [textParsers, byteParsers]) {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, parse] of Object.entries(parsers)) {
      const before = process.threadCpuUsage();
      for (let i = 0; i < PER_ROUND; i++) sink += (parse(i % bodies.length) as unknown[]).length;
      const after = process.threadCpuUsage();
      cpuUs[name] = (cpuUs[name] ?? 0) + after.user + after.system - before.user - before.system;
      kernelUs[name] = (kernelUs[name] ?? 0) + after.system - before.system;
    }
  }
}
const perBody = (name: string, of = cpuUs) => of[name]! / (ROUNDS * PER_ROUND);
console.log(
  `per 500-record body (${(bodies[0]!.length / 1024).toFixed(0)} KiB), thread CPU: ` +
    `Fastify's parser ${perBody('fastify').toFixed(0)} µs, JSON.parse ${perBody('JSON.parse').toFixed(0)} µs (${sink} records)`,
);
console.log(`figure: json_parse_cpu_ratio = ${(perBody('JSON.parse') / perBody('fastify')).toFixed(2)}`);
console.log(
  'from bytes, thread CPU (of it in the kernel): ' +
    ['bytes whole', 'bytes in pieces']
      .map((name) => `${name} ${perBody(name).toFixed(0)} µs (${perBody(name, kernelUs).toFixed(0)} µs)`)
      .join(', '),
);
console.log(
  `figure: body_pieces_cpu_ratio = ${(perBody('bytes in pieces') / perBody('bytes whole')).toFixed(2)}`,
);
