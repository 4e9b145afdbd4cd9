// A PostgreSQL server through a pg connection pool.
import pg from 'pg';
import type { Database, Queryable } from './database.ts';

const INT8_OID = 20;
// Counts are bigint in SQL; as JS numbers they are exact up to 2^53, far beyond any count here.
// PGlite already returns numbers, so both engines hand the same shapes to domain code.
const parseInt8 = (value: string) => Number(value);

export async function openPostgres(
  connectionString: string,
  options: { max?: number } = {},
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    // Hour buckets and date bounds are UTC; the session must not shift them.
    options: '-c TimeZone=UTC',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const client = await pool.connect(); // fail fast when the server is unreachable
  client.release();

  const queryable = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await q.query(sql, params as unknown[]);
      return result.rows as Row[];
    },
    async exec(sql: string) {
      // Without parameters pg uses the simple protocol, which accepts several statements.
      await q.query(sql);
    },
  });
  const base = queryable(pool);

  return {
    kind: 'postgres',
    query: base.query,
    exec: base.exec,
    async transaction(fn) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const result = await fn(queryable(c));
        await c.query('COMMIT');
        return result;
      } catch (error) {
        await c.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        c.release();
      }
    },
    async listen(channel, onNotify) {
      // A dedicated connection outside the pool: LISTEN belongs to one session.
      const c = new pg.Client({ connectionString, options: '-c TimeZone=UTC' });
      c.on('error', () => {});
      await c.connect();
      c.on('notification', (message) => {
        if (message.channel === channel) onNotify(message.payload ?? '');
      });
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await c.end().catch(() => {});
      };
    },
    async close() {
      await pool.end();
    },
  };
}
