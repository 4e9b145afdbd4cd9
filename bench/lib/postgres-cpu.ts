// PostgreSQL's own CPU over a bench run, where the server runs on this machine (Linux /proc): on
// a 2-core machine its processes compete with the server thread and the load generator, so their
// CPU per event weighs as much as the thread's. Sums the CPU time (/proc/<pid>/schedstat's exact
// nanoseconds; else /proc/<pid>/stat's utime + stime, in ticks of 10 ms) of
// - the backends connected to the bench's own database (the group commits, merges, folds: a
//   fresh database per run, so no other work is in them), counted from when first seen (a
//   backend born during the run from its start) to when last seen: one that exits between two
//   samples loses what it did since the last one, so the bench samples at every round's ends;
// - apart, the server's background processes (WAL writer, checkpointer, background writer),
//   which serve every database on the server: only a quiet server's figure is the bench's own.
// Returns null when the server's processes are not visible here (another machine or container).
import { readFileSync } from 'node:fs';
import type { Queryable } from '../../src/db/database.ts';

/** Linux's USER_HZ: /proc reports CPU times in these ticks. */
const TICKS_PER_SECOND = 100;

export interface PostgresCpu {
  /** Reads every process's CPU now (cheap: one small query and a few /proc reads). */
  sample(): Promise<void>;
  /** Microseconds of CPU since the start: the database's backends, and the background processes. */
  readonly totals: { backendsUs: number; backgroundUs: number };
}

/** A process's CPU time in µs, or null when it is gone or not visible. */
export function cpuUsOf(pid: number): number | null {
  try {
    // Nanoseconds on a CPU, exact (the first field); not every kernel keeps schedstats.
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
    } catch {
      return null;
    }
  }
}

interface Seen {
  background: boolean;
  first: number;
  last: number;
}

/** Starts counting; null when the server's processes cannot be read from this machine. */
export async function startPostgresCpu(db: Queryable): Promise<PostgresCpu | null> {
  const seen = new Map<number, Seen>();
  const list = () =>
    db.query<{ pid: number; background: boolean }>(
      `SELECT pid, datname IS NULL AS background FROM pg_stat_activity
        WHERE datname = current_database()
           OR backend_type IN ('walwriter', 'checkpointer', 'background writer')`,
    );
  const initial = await list();
  for (const { pid, background } of initial) {
    const us = cpuUsOf(pid);
    if (us !== null) seen.set(pid, { background, first: us, last: us });
  }
  if (seen.size === 0) return null;
  const totals = { backendsUs: 0, backgroundUs: 0 };
  return {
    totals,
    async sample() {
      for (const { pid, background } of await list()) {
        const us = cpuUsOf(pid);
        if (us === null) continue;
        const known = seen.get(pid);
        // A backend first seen now was born during the run: all of its CPU is the run's.
        if (known === undefined) seen.set(pid, { background, first: 0, last: us });
        else known.last = us;
      }
      totals.backendsUs = 0;
      totals.backgroundUs = 0;
      for (const s of seen.values()) {
        const us = s.last - s.first;
        if (s.background) totals.backgroundUs += us;
        else totals.backendsUs += us;
      }
    },
  };
}
