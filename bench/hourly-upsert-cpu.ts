// PostgreSQL's CPU for the merge's hourly upsert when its keys exist already (every merge after
// an hour's first), by fillfactor and statement form: 1,000 keys upserted again and again into a
// copy of page_views_hourly per variant, rounds alternated, the backend's CPU time read from
// /proc/<pid>/schedstat around each (the server must run on this machine). Prints the median and
// mean of the rounds after five of warm-up, and how many updates were HOT and how large each heap
// grew. The forms: the merge's `INSERT ... ON CONFLICT DO UPDATE` (store/queries.ts) and an
// `UPDATE ... FROM unnest(...)` of the same keys, the same with the rows locked first in the
// batch's order (locked), and the update followed by an insert of the keys it missed (split).
//
// Run: node bench/hourly-upsert-cpu.ts [--fillfactors 100,80] [--rounds 30]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPostgresDatabase } from '../test/helpers/databases.ts';
import { cpuUsOf } from './lib/postgres-cpu.ts';

const { values: args } = parseArgs({
  options: {
    fillfactors: { type: 'string', default: '100,90,80,70' },
    rounds: { type: 'string', default: '30' },
  },
});
const KEYS = 1000;
const WARM_UP = 5;

const keys = {
  projectIds: [] as string[],
  hours: [] as string[],
  paths: [] as string[],
  classes: [] as string[],
  agents: [] as string[],
  verifications: [] as string[],
  views: [] as number[],
};
for (let i = 0; i < KEYS; i++) {
  const k = i % 3;
  keys.projectIds.push('prj_abcdefghijkl');
  keys.hours.push('2026-11-27T13:00:00.000Z');
  keys.paths.push(`/docs/section-${i % 97}/page-${i}.html`);
  keys.classes.push(['human', 'ai', 'bot'][k]!);
  keys.agents.push(k === 0 ? '' : 'GPTBot');
  keys.verifications.push(k === 0 ? '' : 'ip');
  keys.views.push(1 + (i % 5));
}
const params = Object.values(keys);
const UNNEST =
  'unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])';
const upsert = (t: string) =>
  `INSERT INTO ${t} (project_id, hour, path, traffic_class, agent, verification, views) SELECT * FROM ${UNNEST}
   ON CONFLICT (project_id, hour, path, traffic_class, agent, verification) DO UPDATE SET views = ${t}.views + EXCLUDED.views`;
const update = (t: string) =>
  `UPDATE ${t} t SET views = t.views + u.v FROM ${UNNEST} u(p, h, path, c, a, ver, v)
    WHERE t.project_id = u.p AND t.hour = u.h AND t.path = u.path AND t.traffic_class = u.c AND t.agent = u.a AND t.verification = u.ver`;

// The update with its rows locked first in the batch's (sorted) order: what keeps concurrent
// writers' lock order one global order, as the upsert's does.
const lockedUpdate = (t: string) =>
  `WITH locked AS (
     SELECT 1 FROM ${t} t JOIN ${UNNEST} WITH ORDINALITY u(p, h, path, c, a, ver, v, n)
       ON t.project_id = u.p AND t.hour = u.h AND t.path = u.path AND t.traffic_class = u.c AND t.agent = u.a AND t.verification = u.ver
      ORDER BY u.n FOR UPDATE OF t)
   UPDATE ${t} t SET views = t.views + u.v FROM ${UNNEST} u(p, h, path, c, a, ver, v)
    WHERE t.project_id = u.p AND t.hour = u.h AND t.path = u.path AND t.traffic_class = u.c AND t.agent = u.a AND t.verification = u.ver
      AND (SELECT count(*) FROM locked) >= 0`;

// The update of the keys that exist, then an insert of only the others, in one statement: what
// would replace the upsert (the insert keeps ON CONFLICT for a key another writer adds meanwhile).
const U = `${UNNEST} WITH ORDINALITY u(p, h, path, c, a, ver, v, n)`;
const split = (t: string) =>
  `WITH updated AS (
     UPDATE ${t} t SET views = t.views + u.v FROM ${U}
      WHERE t.project_id = u.p AND t.hour = u.h AND t.path = u.path AND t.traffic_class = u.c AND t.agent = u.a AND t.verification = u.ver
     RETURNING u.n)
   INSERT INTO ${t} (project_id, hour, path, traffic_class, agent, verification, views)
   SELECT u.p, u.h, u.path, u.c, u.a, u.ver, u.v FROM ${U} WHERE NOT EXISTS (SELECT 1 FROM updated d WHERE d.n = u.n)
   ON CONFLICT (project_id, hour, path, traffic_class, agent, verification) DO UPDATE SET views = ${t}.views + EXCLUDED.views`;

const created = await createPostgresDatabase();
const client = new pg.Client({ connectionString: created.url });
await client.connect();
try {
  const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [
    { pid: number },
  ];
  const variants: { name: string; table: string; sql: string }[] = [];
  for (const fillfactor of args.fillfactors.split(',').map(Number)) {
    for (const [form, sql] of [
      ['upsert', upsert],
      ['update', update],
      ['locked', lockedUpdate],
      ['split', split],
    ] as const) {
      const table = `hourly_${form}_${fillfactor}`;
      // page_views_hourly's columns, checks and key (migration 0001), without the foreign key.
      await client.query(`CREATE TABLE ${table} (
        project_id text NOT NULL, hour timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
        path text NOT NULL, traffic_class text NOT NULL CHECK (traffic_class IN ('human', 'ai', 'bot')),
        agent text NOT NULL DEFAULT '', verification text NOT NULL DEFAULT '', views bigint NOT NULL CHECK (views >= 0),
        PRIMARY KEY (project_id, hour, path, traffic_class, agent, verification)) WITH (fillfactor = ${fillfactor})`);
      await client.query(upsert(table), params);
      variants.push({ name: `${form}, fillfactor ${fillfactor}`, table, sql: sql(table) });
    }
  }
  const times = new Map<string, number[]>();
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const v of variants) {
      const before = cpuUsOf(pid)!;
      await client.query('BEGIN');
      await client.query(v.sql, params);
      await client.query('COMMIT');
      if (round >= WARM_UP) times.set(v.name, [...(times.get(v.name) ?? []), cpuUsOf(pid)! - before]);
    }
  }
  // The statistics collector reports a moment after the transactions end.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (const v of variants) {
    const us = times.get(v.name)!.sort((a, b) => a - b);
    const mean = us.reduce((a, b) => a + b, 0) / us.length;
    const [stats] = (
      await client.query<{ updates: number; hot: number; bytes: number }>(
        `SELECT n_tup_upd AS updates, n_tup_hot_upd AS hot, pg_relation_size(relid) AS bytes
           FROM pg_stat_user_tables WHERE relname = $1`,
        [v.table],
      )
    ).rows;
    console.log(
      `${v.name}: backend CPU per ${KEYS} keys median ${(us[us.length >> 1]! / 1000).toFixed(1)} ms, ` +
        `mean ${(mean / 1000).toFixed(1)} ms; HOT ${stats!.hot} of ${stats!.updates} updates; heap ${Math.round(Number(stats!.bytes) / 1024)} KiB`,
    );
  }
} finally {
  await client.end();
  await created.drop();
}
