// What one statement costs PGlite's caller (the server's thread), by the way it is sent, on an
// in-memory PGlite: thread CPU per statement, averaged over many runs, for
//   query       PGlite's query(): Parse, Describe statement, Bind, Describe portal, Execute and
//               Sync, each its own call into the WebAssembly PostgreSQL;
//   one-buffer  the same messages for the unnamed statement in one call (Parse, Bind, Describe
//               portal, Execute, Sync; the parameter types described once per text, beforehand);
//   named       a named prepared statement, parsed once: Bind, Describe portal, Execute, Sync;
// for the group commit's staging statement with a busy group's payload (about 50 KB of counts,
// 12 KB of visitor ids), with a quiet group's (a few bytes) and for a one-row SELECT. Then the
// staging statement through query() with its bytea parameter sent as hex text (the serializer
// before) and as bytes (binary format, src/db/pglite.ts byteaBinary), split by payload.
//
// Run: node bench/pglite-statement-paths.ts [--rounds N] [--custom-plans]
//   --custom-plans  SET plan_cache_mode = force_custom_plan first (named statements replanned
//                   on every run, as unnamed ones are)
// Prints one line per (round, path, statement); the rounds show the spread.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { byteaBinary } from '../src/db/pglite.ts';

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '2' }, 'custom-plans': { type: 'boolean', default: false } },
});
const rounds = Number(args.rounds);
const wire = protocol.serialize;

const SCHEMA = `CREATE TABLE s (id bigserial PRIMARY KEY, views int, counts text, referrals text, formats text);
  ALTER TABLE s ALTER COLUMN counts SET STORAGE EXTERNAL;
  CREATE TABLE v (id bigserial PRIMARY KEY, ids bytea);
  ALTER TABLE v ALTER COLUMN ids SET STORAGE EXTERNAL;`;
const STAGE = `WITH visitor_ids AS (INSERT INTO v (ids) SELECT $5::bytea WHERE $5::bytea IS NOT NULL)
  INSERT INTO s (views, counts, referrals, formats) VALUES ($1, $2, $3, $4) RETURNING id`;
const SELECT = 'SELECT id FROM s WHERE id = $1';
const counts = JSON.stringify(Array.from({ length: 3000 }, (_, i) => [i, i % 7, 'abcdefgh'.slice(i % 5)]));
const ids = randomBytes(12_000);
const busy = [7000, counts, null, null, ids];
const quiet = [1, '[]', null, null, randomBytes(16)];

function threadMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

async function time(label: string, n: number, run: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 20; i++) await run();
  const started = threadMs();
  for (let i = 0; i < n; i++) await run();
  console.log(`${label.padEnd(34)} ${((threadMs() - started) / n).toFixed(3)} ms thread CPU per statement`);
}

async function open(byteaSerializer: (v: unknown) => string): Promise<PGlite> {
  const pg = await PGlite.create({ serializers: { 17: byteaSerializer } });
  await pg.exec(SCHEMA);
  if (args['custom-plans']) await pg.exec('SET plan_cache_mode = force_custom_plan');
  return pg;
}

/** The statement in one call into PostgreSQL; `name` null: the unnamed statement, parsed each time. */
function oneCall(pg: PGlite) {
  const types = new Map<string, number[]>();
  const prepared = new Set<string>();
  return async (sql: string, params: unknown[], name: string | null) => {
    let oids = types.get(sql);
    if (oids === undefined) {
      oids = (await pg.describeQuery(sql)).queryParams.map((p) => p.dataTypeID);
      types.set(sql, oids);
    }
    const values = params.map((p, i) => (p == null ? null : (pg.serializers[oids[i]!]?.(p) ?? String(p))));
    const messages: Uint8Array[] = [];
    if (name === null) messages.push(wire.parse({ text: sql, types: oids }));
    else if (!prepared.has(name)) {
      messages.push(wire.parse({ name, text: sql, types: oids }));
      prepared.add(name);
    }
    messages.push(wire.bind({ statement: name ?? '', values }), wire.describe({ type: 'P' }));
    messages.push(wire.execute({}), wire.sync());
    const message = Buffer.concat(messages);
    return pg.runExclusive(async () => {
      const replies = await pg.execProtocolStream(message, { syncToFs: false });
      return parse.parseResults(replies, pg.parsers)[0]!.rows;
    });
  };
}

function byteaHexNative(value: unknown): string {
  const b = value as Uint8Array;
  return `\\x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

const pg = await open(byteaBinary);
const call = oneCall(pg);
for (let round = 1; round <= rounds; round++) {
  await time(`${round} query      staging, busy`, 300, () => pg.query(STAGE, busy));
  await time(`${round} one-buffer staging, busy`, 300, () => call(STAGE, busy, null));
  await time(`${round} named      staging, busy`, 300, () => call(STAGE, busy, 'stage'));
  await time(`${round} query      staging, quiet`, 1000, () => pg.query(STAGE, quiet));
  await time(`${round} one-buffer staging, quiet`, 1000, () => call(STAGE, quiet, null));
  await time(`${round} named      staging, quiet`, 1000, () => call(STAGE, quiet, 'stage'));
  await time(`${round} query      select one row`, 2000, () => pg.query(SELECT, [5]));
  await time(`${round} one-buffer select one row`, 2000, () => call(SELECT, [5], null));
  await time(`${round} named      select one row`, 2000, () => call(SELECT, [5], 'select'));
  await pg.exec('DELETE FROM s; DELETE FROM v');
  await pg.exec('VACUUM s, v');
}
await pg.close();

for (const [form, serializer] of [
  ['hex', byteaHexNative],
  ['bytes', byteaBinary],
] as const) {
  const db = await open(serializer);
  for (let round = 1; round <= rounds; round++) {
    await time(`${round} bytea as ${form}: counts + ids`, 300, () => db.query(STAGE, busy));
    await time(`${round} bytea as ${form}: ids only`, 300, () =>
      db.query(STAGE, [7000, '[]', null, null, ids]),
    );
    await time(`${round} bytea as ${form}: counts only`, 300, () =>
      db.query(STAGE, [7000, counts, null, null, null]),
    );
    await time(`${round} bytea as ${form}: neither`, 300, () =>
      db.query(STAGE, [7000, '[]', null, null, null]),
    );
    await db.exec('DELETE FROM s; DELETE FROM v');
    await db.exec('VACUUM s, v');
  }
  await db.close();
}
