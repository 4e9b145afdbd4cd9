// The embedded default: PostgreSQL compiled to WebAssembly, running inside this process and
// persisted to a directory. It is one session, owned by one process: openPglite takes the data
// directory's lock first (see data-dir-lock.ts).
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.ts';
import { useArrayTextSerializers } from './pglite-array-text.ts';

/** PostgreSQL's type id of bytea. */
const BYTEA_OID = 17;

/**
 * A bytea parameter as itself: PGlite sends a parameter that is a Uint8Array in binary format
 * (its bind message copies exactly the view's bytes), which PostgreSQL takes as they are. Both
 * text forms cost the server's thread more: PGlite's own serializer maps every byte through a
 * JavaScript string (Array.from, toString(16), join), and even natively written hex text doubles
 * the bytes sent and is decoded again inside the WebAssembly PostgreSQL. The group commit stages
 * its visitor ids as bytea (docs/ingestion.md, "PGlite's statements"). PGlite types serializers
 * as returning text, hence the cast. No bytea[] parameter is sent anywhere: an array's serializer
 * would join these as text.
 */
export function byteaBinary(value: unknown): string {
  if (!(value instanceof Uint8Array)) throw new TypeError('a bytea parameter must be a Uint8Array');
  return value as unknown as string;
}

/** dataDir null gives a throwaway in-memory database (tests). */
export async function openPglite(dataDir: string | null): Promise<Database> {
  const serializers = { [BYTEA_OID]: byteaBinary };
  const pg = await PGlite.create(dataDir === null ? { serializers } : { dataDir, serializers });
  useArrayTextSerializers(pg);
  // Hour buckets and date bounds are UTC; the session must not shift them.
  await pg.exec("SET TimeZone = 'UTC'");
  const asQueryable = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await q.query<Row>(sql, params as unknown[]);
      return result.rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const base = asQueryable(pg);
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    transaction: (fn) => pg.transaction((tx) => fn(asQueryable(tx))),
    async listen(channel, onNotify, options = {}) {
      const unlisten = await pg.listen(channel, onNotify);
      // One session in this process: once listening, nothing is ever missed until stopped.
      options.onConnection?.(true);
      return async () => {
        options.onConnection?.(false);
        // A closed PGlite listens to nothing any more (an app closed after its database).
        if (!pg.closed) await unlisten();
      };
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
}
