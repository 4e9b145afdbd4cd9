// Opens the configured database: PostgreSQL when DATABASE_URL is set, else the embedded PGlite
// in the data directory (locked for this process), and brings its schema up to date.
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import type { Database } from './database.ts';
import { migrate } from './migrate.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import { ensurePrivateDir } from './private-dir.ts';

export interface OpenedDatabase {
  db: Database;
  /** The data-directory lock on the embedded default; null on PostgreSQL. */
  lock: DataDirLock | null;
  close(): Promise<void>;
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  command: string,
): Promise<OpenedDatabase> {
  ensurePrivateDir(config.dataDir);
  if (config.databaseUrl !== null) {
    const db = await openPostgres(config.databaseUrl);
    await migrate(db);
    return { db, lock: null, close: () => db.close() };
  }
  const lock = acquireDataDirLock(config.dataDir, command);
  try {
    const db = await openPglite(join(config.dataDir, 'pgdata'));
    await migrate(db);
    return {
      db,
      lock,
      async close() {
        try {
          await db.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
