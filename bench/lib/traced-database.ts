// A Database that records every statement it runs (start, duration, the SQL's first words), for
// bench/agent.ts's timeline and its per-job count of database round trips. A transaction's BEGIN
// and COMMIT are counted as statements too, since each is a round trip on PostgreSQL.
import type { Database, Queryable } from '../../src/db/database.ts';

export interface TracedStatement {
  /** Date.now() when the statement was sent. */
  at: number;
  ms: number;
  /** The statement's first words, whitespace folded. */
  text: string;
}

function shortText(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim().slice(0, 60);
}

export function tracedDatabase(db: Database, statements: TracedStatement[]): Database {
  const timed = async <T>(text: string, run: () => Promise<T>): Promise<T> => {
    const at = Date.now();
    const start = performance.now();
    try {
      return await run();
    } finally {
      statements.push({ at, ms: performance.now() - start, text });
    }
  };
  const traced = (q: Queryable): Queryable => ({
    query: (sql, params) => timed(shortText(sql), () => q.query(sql, params)),
    exec: (sql) => timed(shortText(sql), () => q.exec(sql)),
  });
  const base = traced(db);
  return {
    kind: db.kind,
    query: base.query,
    exec: base.exec,
    transaction: async (fn) => {
      const at = Date.now();
      const start = performance.now();
      statements.push({ at, ms: 0, text: 'BEGIN' });
      try {
        return await db.transaction((tx) => fn(traced(tx)));
      } finally {
        statements.push({ at: Date.now(), ms: performance.now() - start, text: 'COMMIT (transaction)' });
      }
    },
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
  };
}
