// Runs a suite once per storage engine, each on a fresh database: PGlite in memory, and a new
// PostgreSQL database created on TEST_DATABASE_URL's server and dropped afterwards.
// Outside CI an unreachable PostgreSQL skips its half with a note; with CI=true it fails the run.
import { after, before, describe } from 'node:test';
import pg from 'pg';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { randomBase62 } from '../../src/util/random.ts';

export type Backend = 'pglite' | 'postgres';
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const IN_CI = process.env.CI === 'true';

let reachable: Promise<string | null> | undefined;
/** null when PostgreSQL answers, else why not. */
function postgresProblem(): Promise<string | null> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return null;
    } catch (error) {
      return `PostgreSQL at ${TEST_DATABASE_URL} is unreachable (${(error as Error).message})`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return reachable;
}

/**
 * For suites that run on PostgreSQL alone: why it is unreachable (null when it answers), and the
 * describe() skip that goes with it — the reason outside CI, false in CI, where the suite's
 * before() must fail on `problem` instead.
 */
export async function postgresAvailability(): Promise<{ problem: string | null; skip: string | false }> {
  const problem = await postgresProblem();
  return { problem, skip: problem !== null && !IN_CI ? problem : false };
}

/** A new empty PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `dw_test_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Opens a fresh, migrated database of the given engine; close() also drops a PostgreSQL one. */
export async function openTestDatabase(backend: Backend): Promise<Database> {
  if (backend === 'pglite') {
    const db = await openPglite(null);
    await migrate(db);
    return db;
  }
  const created = await createPostgresDatabase();
  const db = await openPostgres(created.url, { max: 5 });
  await migrate(db);
  return {
    ...db,
    async close() {
      await db.close();
      await created.drop();
    },
  };
}

/**
 * describe(`${name} [backend]`) for each backend, with a fresh database for the whole block:
 * call the returned getter inside tests (the database exists only once before() ran).
 */
export async function forEachBackend(
  name: string,
  suite: (ctx: { backend: Backend; db: () => Database }) => void,
): Promise<void> {
  const problem = await postgresProblem();
  for (const backend of ['pglite', 'postgres'] as const) {
    const skip = backend === 'postgres' && problem !== null && !IN_CI ? problem : false;
    describe(`${name} [${backend}]`, { skip }, () => {
      let db: Database | undefined;
      before(async () => {
        if (backend === 'postgres' && problem !== null) throw new Error(`${problem}; CI=true requires it`);
        db = await openTestDatabase(backend);
      });
      after(async () => {
        await db?.close();
      });
      suite({
        backend,
        db: () => {
          if (!db) throw new Error('the test database is not open yet');
          return db;
        },
      });
    });
  }
}
