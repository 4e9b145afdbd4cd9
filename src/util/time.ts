// Time spans in milliseconds, and the hour an instant falls in: page views are counted per UTC
// hour, so ingestion, log import and the rollups all round a time down to its hour.

export const HOUR_MS = 3_600_000;

/** The start of the UTC hour holding an instant, in epoch milliseconds: a rollup row's hour. */
export function hourOf(atMs: number): number {
  return Math.floor(atMs / HOUR_MS) * HOUR_MS;
}

/**
 * The hour an instant falls in, as hours since the epoch: a small integer (about 500,000 now),
 * which V8 keeps unboxed where epoch milliseconds (above 2^31) become a heap number each time
 * one is passed or stored. Ingest carries a record's hour this way (rollup-tally.ts).
 */
export function hourNumberOf(atMs: number): number {
  return Math.floor(atMs / HOUR_MS);
}
