// The keyed hashes that make a log line's visitor id (store/visitor-ids.ts), one salt per UTC day
// of the lines' own times. Decided so (docs/log-import.md#visitors):
// - lines of the current UTC day use that day's stored salt, the one ingest uses, so a reader
//   seen by the browser script and in the log, or in several imports of a live log that day, is
//   one visitor;
// - a past day's salt was deleted when its day ended, on purpose (ids of a day cannot be made
//   again afterwards), and is not made again: lines of a past day get a salt of their own, random,
//   made for this run and that day, held in this process's memory only and dropped with it. Ids of
//   one day of the log link as a day's ids should; they link to nothing else, so the same reader
//   counts twice if a past day's lines arrive in two runs, or were also counted by ingest.
import { randomBytes } from 'node:crypto';
import { utcDayOf, VisitorHasher } from '../store/index.ts';

/** The stored salt of `day` when it is the current UTC day where the database is; else null. */
export type CurrentDaySalt = (day: string) => Promise<Uint8Array | null>;

export class ImportVisitorIds {
  readonly #currentDaySalt: CurrentDaySalt;
  readonly #hashers = new Map<string, Promise<VisitorHasher>>();
  #lastDay = '';
  #last: VisitorHasher | null = null;

  constructor(currentDaySalt: CurrentDaySalt) {
    this.#currentDaySalt = currentDaySalt;
  }

  /** The hasher of the UTC day of `atMs` (a line's own time). */
  async hasherAt(atMs: number): Promise<VisitorHasher> {
    const day = utcDayOf(atMs);
    if (day === this.#lastDay && this.#last !== null) return this.#last;
    let hasher = this.#hashers.get(day);
    if (hasher === undefined) {
      hasher = this.#currentDaySalt(day).then((salt) => new VisitorHasher(salt ?? randomBytes(32)));
      this.#hashers.set(day, hasher);
    }
    this.#last = await hasher;
    this.#lastDay = day;
    return this.#last;
  }
}
