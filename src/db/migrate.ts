// Forward-only numbered migrations: db/migrations/NNNN_name.sql, applied in order, each once.
// All pending files run in one transaction under an advisory lock, so two processes starting
// at once neither both apply a file nor see a half-migrated schema: the second waits, then finds
// nothing left to do.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations/', import.meta.url));
// Any constant works, as long as nothing else in the database uses it ("docwri" in ASCII).
const MIGRATION_LOCK_ID = 0x646f63777269;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => {
      const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
      if (!match) throw new Error(`Migration file name must look like 0001_name.sql: ${file}`);
      return { version: Number(match[1]), name: match[2]!, sql: readFileSync(`${dir}/${file}`, 'utf8') };
    })
    .sort((a, b) => a.version - b.version);
  // Gaps are allowed (work in parallel reserves numbers); the same number twice is not.
  migrations.forEach((m, i) => {
    const previous = migrations[i - 1];
    if (previous !== undefined && previous.version === m.version)
      throw new Error(`Two migrations have number ${m.version}: ${previous.name} and ${m.name}`);
  });
  return migrations;
}

/** Applies pending migrations; returns the versions applied by this call. */
export async function migrate(db: Database, migrations = loadMigrations()): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const newlyApplied: number[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      newlyApplied.push(m.version);
    }
    return newlyApplied;
  });
}
