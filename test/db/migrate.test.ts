import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createPostgresDatabase, forEachBackend } from '../helpers/databases.ts';

const EXPECTED_TABLES = [
  'api_keys',
  'ingest_batches',
  'job_events',
  'job_prompts',
  'jobs',
  'page_views_hourly',
  'projects',
];

test('migration files have distinct, increasing numbers starting at 1', () => {
  const versions = loadMigrations().map((m) => m.version);
  assert.equal(versions[0], 1);
  for (let i = 1; i < versions.length; i++) assert.ok(versions[i]! > versions[i - 1]!, `${versions[i]}`);
});

test('PGlite: migrating twice applies each file once', async () => {
  const db = await openPglite(null);
  try {
    const first = await migrate(db);
    assert.deepEqual(
      first,
      loadMigrations().map((m) => m.version),
    );
    assert.deepEqual(await migrate(db), []);
    const rows = await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM schema_migrations');
    assert.equal(rows[0]!.n, first.length);
  } finally {
    await db.close();
  }
});

await forEachBackend('schema', ({ db }) => {
  test('has the tables the modules use', async () => {
    const rows = await db().query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    const names = rows.map((r) => r.table_name);
    for (const t of EXPECTED_TABLES) assert.ok(names.includes(t), t);
  });

  test('hourly rollups refuse a time that is not on the hour, in any session time zone', async () => {
    await db().query(
      "INSERT INTO projects (id, name, repository_url, code_host_kind) VALUES ('prj_tz', 'tz', 'https://github.com/a/b', 'github')",
    );
    // India is UTC+05:30: a check written with date_trunc would judge 10:00Z "not on the hour".
    const insertIn = (zone: string, hour: string) =>
      db().transaction(async (tx) => {
        await tx.query(`SET LOCAL TimeZone = '${zone}'`);
        await tx.query(
          "INSERT INTO page_views_hourly (project_id, hour, path, traffic_class, views) VALUES ('prj_tz', $1, '/', 'human', 1)",
          [hour],
        );
      });
    await assert.rejects(insertIn('UTC', '2025-01-01T10:30:00Z'));
    await assert.rejects(insertIn('Asia/Kolkata', '2025-01-01T10:30:00Z'));
    await insertIn('Asia/Kolkata', '2025-01-01T10:00:00Z');
    await insertIn('UTC', '2025-01-01T11:00:00Z');
  });
});

test('PostgreSQL: four processes migrating one empty database at once all succeed, each file applied once', async (t) => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  try {
    created = await createPostgresDatabase();
  } catch (error) {
    if (process.env.CI === 'true') throw error;
    t.skip(`PostgreSQL unreachable: ${(error as Error).message}`);
    return;
  }
  const dbs = await Promise.all(Array.from({ length: 4 }, () => openPostgres(created.url, { max: 2 })));
  try {
    const applied = await Promise.all(dbs.map((db) => migrate(db)));
    const all = applied.flat().sort((a, b) => a - b);
    assert.deepEqual(
      all,
      loadMigrations().map((m) => m.version),
      'each version applied by exactly one of them',
    );
    const rows = await dbs[0]!.query<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
    );
    assert.deepEqual(
      rows.map((r) => r.version),
      loadMigrations().map((m) => m.version),
    );
    assert.deepEqual(await migrate(dbs[1]!), []);
  } finally {
    await Promise.all(dbs.map((db) => db.close()));
    await created.drop();
  }
});
