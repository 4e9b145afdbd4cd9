// PGlite's array parameters: the merges' hourly rollup upsert (1,000 keys, seven arrays) on an
// in-memory PGlite, run again and again with PGlite's own array serializers and with the
// project's (src/db/pglite-array-text.ts), alternated every round in the same process, so a busy
// machine falls on both. Prints thread CPU per statement and, separately, per serialization of
// the statement's arrays.
//
// Run: node bench/pglite-array-params.ts [--rounds 10] [--statements 40]
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { useArrayTextSerializers } from '../src/db/pglite-array-text.ts';

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '10' }, statements: { type: 'string', default: '40' } },
});
const ROUNDS = Number(args.rounds);
const STATEMENTS = Number(args.statements);

const pg = await PGlite.create();
await pg.exec(`SET TimeZone = 'UTC';
  CREATE TABLE page_views_hourly (
    project_id text NOT NULL, hour timestamptz NOT NULL, path text NOT NULL,
    traffic_class text NOT NULL, agent text NOT NULL DEFAULT '', verification text NOT NULL DEFAULT '',
    views bigint NOT NULL, PRIMARY KEY (project_id, hour, path, traffic_class, agent, verification)
  ) WITH (fillfactor = 80)`);
const UPSERT = `INSERT INTO page_views_hourly (project_id, hour, path, traffic_class, agent, verification, views)
  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
  ON CONFLICT (project_id, hour, path, traffic_class, agent, verification)
  DO UPDATE SET views = page_views_hourly.views + EXCLUDED.views`;
const n = 1000;
const params = [
  Array.from({ length: n }, () => 'prj_0123456789abcdef'),
  Array.from({ length: n }, () => '2026-11-27T12:00:00.000Z'),
  Array.from({ length: n }, (_, i) => `/docs/section-${i % 40}/page-${i}`),
  Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 'ai' : 'human')),
  Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 'GPTBot' : '')),
  Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 'ip' : '')),
  Array.from({ length: n }, (_, i) => 1 + (i % 7)),
];
const ARRAY_OIDS = [1009, 1185, 1009, 1009, 1009, 1009, 1016];

const pglites = { ...pg.serializers };
useArrayTextSerializers(pg);
const ours = { ...pg.serializers };

const threadMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};
const sums = { pglite: { statement: 0, arrays: 0 }, ours: { statement: 0, arrays: 0 } };
for (let round = 0; round < ROUNDS; round++) {
  for (const side of round % 2 === 0 ? (['pglite', 'ours'] as const) : (['ours', 'pglite'] as const)) {
    pg.serializers = side === 'pglite' ? pglites : ours;
    let started = threadMs();
    for (let i = 0; i < STATEMENTS; i++) await pg.query(UPSERT, params);
    sums[side].statement += (threadMs() - started) / STATEMENTS;
    started = threadMs();
    for (let i = 0; i < STATEMENTS; i++) {
      for (let k = 0; k < params.length; k++) pg.serializers[ARRAY_OIDS[k]!]!(params[k]);
    }
    sums[side].arrays += (threadMs() - started) / STATEMENTS;
  }
}
await pg.close();
for (const side of ['pglite', 'ours'] as const) {
  const s = sums[side];
  console.log(
    `${side.padEnd(6)} upsert ${(s.statement / ROUNDS).toFixed(2)} ms, its arrays' text ${(s.arrays / ROUNDS).toFixed(2)} ms of thread CPU`,
  );
}
