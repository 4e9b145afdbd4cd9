// Times PGlite's work on the server's thread by statement: every statement runs as a few
// synchronous calls into the WebAssembly PostgreSQL (parse, describe, bind, execute, sync), each
// timed here in thread CPU (a busy machine's preemption is not counted) and charged to the
// statement whose Parse (or simple Query) message began it (PGlite runs one statement at a time,
// so the messages in between are that statement's). The whole of PGlite's exclusive section for
// the statement (the JavaScript around the calls too: serialising parameters, parsing results)
// is timed as well, in wall time: other work may run in between. Bench only: patches PGlite's
// prototype.
import { PGlite } from '@electric-sql/pglite';

export interface StatementTime {
  /** Statements run. */
  count: number;
  /** Thread CPU milliseconds inside PGlite's synchronous calls into PostgreSQL. */
  wasmMs: number;
  /** Milliseconds of PGlite's whole exclusive section for the statement (wasm included). */
  totalMs: number;
}

const PARSE = 0x50; // 'P'
const QUERY = 0x51; // 'Q'

/** The statement's first words, whitespace collapsed: its kind. */
function labelOf(message: Uint8Array): string {
  // 'P', int32 length, statement name (C string), query text (C string).
  let start = 5;
  if (message[0] === PARSE) {
    while (message[start] !== 0) start++;
    start++;
  }
  let end = start;
  while (end < message.length && message[end] !== 0 && end - start < 400) end++;
  const text = Buffer.from(message.subarray(start, end)).toString('utf8').replace(/\s+/g, ' ').trim();
  return text.slice(0, 90);
}

/** Starts timing every PGlite instance's statements; returns the table, filled as they run. */
export function timePgliteStatements(): Map<string, StatementTime> {
  const times = new Map<string, StatementTime>();
  let current: StatementTime | null = null;
  const proto = PGlite.prototype as unknown as {
    execProtocolRawSync(message: Uint8Array): Uint8Array;
    _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  };
  const sync = proto.execProtocolRawSync;
  proto.execProtocolRawSync = function (this: unknown, message: Uint8Array) {
    if (message[0] === PARSE || message[0] === QUERY) {
      const label = labelOf(message);
      current = times.get(label) ?? { count: 0, wasmMs: 0, totalMs: 0 };
      times.set(label, current);
      current.count++;
    }
    const started = process.threadCpuUsage();
    try {
      return sync.call(this, message);
    } finally {
      const used = process.threadCpuUsage(started);
      if (current !== null) current.wasmMs += (used.user + used.system) / 1000;
    }
  };
  const exclusive = proto._runExclusiveQuery;
  proto._runExclusiveQuery = function <T>(this: unknown, fn: () => Promise<T>) {
    return exclusive.call(this, async () => {
      const started = performance.now();
      current = null;
      try {
        return await fn();
      } finally {
        if (current !== null) (current as StatementTime).totalMs += performance.now() - started;
        current = null;
      }
    }) as Promise<T>;
  };
  return times;
}

/** The table, largest CPU inside PostgreSQL first. */
export function formatStatementTimes(times: Map<string, StatementTime>, events: number): string {
  const rows = [...times.entries()].sort(([, a], [, b]) => b.wasmMs - a.wasmMs);
  const sum = rows.reduce((s, [, t]) => s + t.wasmMs, 0);
  const perThousand = (ms: number) => ((ms * 1000 * 1000) / Math.max(1, events)).toFixed(0);
  const lines = rows.map(
    ([label, t]) =>
      `  cpu ${t.wasmMs.toFixed(0).padStart(6)} ms ${((t.wasmMs / sum) * 100).toFixed(1).padStart(5)}% ` +
      `${perThousand(t.wasmMs).padStart(5)} µs/1,000 ev  ${String(t.count).padStart(6)} × ${(t.wasmMs / t.count).toFixed(2).padStart(7)} ms` +
      ` (wall ${t.totalMs.toFixed(0).padStart(6)} ms)  ${label}`,
  );
  return (
    `PGlite statements: ${sum.toFixed(0)} ms of thread CPU inside PostgreSQL, ${perThousand(sum)} µs per 1,000 events\n` +
    lines.join('\n')
  );
}
