import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createPostgresDatabase, forEachBackend } from '../helpers/databases.ts';
import { actualSchema, declaredSchema, schemaDifferences } from './declared-schema.ts';

test('the loader skips other files, and refuses duplicate numbers and names not like 0001_name.sql', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'docwright-migrations-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ['0010_c.sql', '0002_b.sql', '0001_a.sql', 'README.txt'])
    writeFileSync(join(dir, file), '');
  assert.deepEqual(
    loadMigrations(dir).map((m) => `${m.version}_${m.name}`),
    ['1_a', '2_b', '10_c'],
  );
  writeFileSync(join(dir, '0002_again.sql'), '');
  assert.throws(() => loadMigrations(dir), /Two migrations have number 2/);
  rmSync(join(dir, '0002_again.sql'));
  for (const bad of ['3_short.sql', '0004_Upper.sql', '0004-dash.sql']) {
    writeFileSync(join(dir, bad), '');
    assert.throws(
      () => loadMigrations(dir),
      new RegExp(`must look like 0001_name\\.sql: ${bad.replace('.', '\\.')}`),
    );
    rmSync(join(dir, bad));
  }
});

test('the real files load in increasing order from 1', () => {
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
  test('has exactly the tables, columns and indexes the migration files declare', async () => {
    const declared = declaredSchema(loadMigrations());
    assert.ok(declared.columns.includes('jobs.prompt') && declared.indexes.length > 5, 'the files were read');
    assert.deepEqual(schemaDifferences(declared, await actualSchema(db())), []);
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

test('PGlite: a database migrated without one of the files, or with them out of order, is told apart', async () => {
  const all = loadMigrations();
  const declared = declaredSchema(all);
  const outcome = async (migrations: typeof all): Promise<string> => {
    const db = await openPglite(null);
    try {
      await migrate(db, migrations);
      return schemaDifferences(declared, await actualSchema(db)).join('; ');
    } catch (error) {
      return `migrate failed: ${(error as Error).message}`;
    } finally {
      await db.close();
    }
  };
  for (const left of all) {
    const differs = await outcome(all.filter((m) => m !== left));
    assert.notEqual(differs, '', `leaving out ${left.version}_${left.name} went unnoticed`);
  }
  assert.notEqual(await outcome([...all].reverse()), '', 'applying the files newest first went unnoticed');
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
