// Counts the rows a run writes into page_views_hourly (the merge's first and largest upsert), by
// wrapping the database the server is given: a measure of merge work per event that the load of
// a shared machine does not disturb, unlike the time merges take.
import type { Database, Queryable } from '../../src/db/database.ts';

export interface RollupWrites {
  statements: number;
  rows: number;
}

const HOURLY_UPSERT = /^\s*INSERT INTO page_views_hourly\b/;

/** `db` with its hourly upserts counted into the returned counts. */
export function countRollupWrites(db: Database): { db: Database; writes: RollupWrites } {
  const writes: RollupWrites = { statements: 0, rows: 0 };
  const counted = <Q extends Queryable>(q: Q): Q => {
    const query = q.query.bind(q);
    return Object.assign(Object.create(q) as Q, {
      query: (sql: string, params?: readonly unknown[]) => {
        if (HOURLY_UPSERT.test(sql)) {
          writes.statements++;
          writes.rows += Array.isArray(params?.[0]) ? params[0].length : 0;
        }
        return query(sql, params);
      },
    });
  };
  const wrapped = counted(db);
  wrapped.transaction = (fn) => db.transaction((tx) => fn(counted(tx)));
  return { db: wrapped, writes };
}
