// A PostgreSQL server through a pg connection pool.
import pg from 'pg';
import type { Database, ListenOptions, Queryable } from './database.ts';

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
      // pg-pool stops listening for a client's errors while it is checked out: a connection that
      // drops between two statements of the transaction would emit 'error' with no listener,
      // which ends the process. Listened to here, the failure reaches fn's next statement (or
      // COMMIT) as a rejected query instead, and the broken client is discarded, not reused.
      let broken: Error | null = null;
      const onError = (error: Error) => {
        broken ??= error;
      };
      c.on('error', onError);
      try {
        await c.query('BEGIN');
        const result = await fn(queryable(c));
        await c.query('COMMIT');
        return result;
      } catch (error) {
        await c.query('ROLLBACK').catch((rollbackError: Error) => {
          broken ??= rollbackError;
        });
        throw error;
      } finally {
        c.off('error', onError);
        c.release(broken ?? undefined);
      }
    },
    listen: (channel, onNotify, options) => listenReconnecting(connectionString, channel, onNotify, options),
    async close() {
      await pool.end();
    },
  };
}

// How long a lost LISTEN connection waits before it connects again: doubling up to the cap.
const LISTEN_RETRY_FIRST_MS = 250;
const LISTEN_RETRY_MAX_MS = 10_000;

/**
 * LISTEN on a dedicated connection outside the pool (LISTEN belongs to one session) that connects
 * again, and listens again, whenever it is lost, until stopped. Notifications sent while it was
 * away are gone: every listener here also polls, so they are late, never lost.
 */
async function listenReconnecting(
  connectionString: string,
  channel: string,
  onNotify: (payload: string) => void,
  options: ListenOptions = {},
): Promise<() => Promise<void>> {
  const onConnection = options.onConnection ?? (() => {});
  let stopped = false;
  let client: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let delay = LISTEN_RETRY_FIRST_MS;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString, options: '-c TimeZone=UTC' });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (client === c) {
        client = null;
        onConnection(false);
      }
      c.end().catch(() => {});
      scheduleReconnect();
    };
    c.on('error', onLost);
    c.on('end', onLost);
    c.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    try {
      await c.connect();
      if (options.background) (c.connection.stream as { unref?: () => void }).unref?.();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      onLost();
      throw error;
    }
    if (stopped || lost) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    delay = LISTEN_RETRY_FIRST_MS;
    onConnection(true);
  };

  const scheduleReconnect = () => {
    if (stopped || retryTimer !== null) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect().catch(() => {}); // a failure schedules the next try itself
    }, delay);
    if (options.background) retryTimer.unref();
    delay = Math.min(delay * 2, LISTEN_RETRY_MAX_MS);
  };

  // The first connection must work: a caller starting up learns at once that the server is away.
  try {
    await connect();
  } catch (error) {
    stopped = true;
    if (retryTimer !== null) clearTimeout(retryTimer);
    throw error;
  }
  return async () => {
    stopped = true;
    if (retryTimer !== null) clearTimeout(retryTimer);
    retryTimer = null;
    const c = client;
    client = null;
    if (c !== null) onConnection(false);
    await c?.end().catch(() => {});
  };
}
