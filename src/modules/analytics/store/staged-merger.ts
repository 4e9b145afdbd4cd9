// Merges the views an ingest writer staged (staged-views.ts) into the rollups, in the background:
// a while after the first group commit it was told of, then again as long as groups keep coming.
// Waiting is the point: a merge costs per distinct rollup key, so one merge per second under
// load writes each popular page's rows once instead of once per group commit. Exports do not
// wait for it: they merge what is staged themselves before reading. The runtime's Pump runs it:
// one merge at a time, on a timer; merges of several processes are serialised by the advisory
// lock mergeStagedViews takes.
//
// Pacing: the wait after a merge grows with how long that merge took (paceFactor times it, within
// delayMs and maxDelayMs), so merging never takes more than about 1 / (paceFactor + 1) of the
// time. Under sustained load a merge of one second's keys took most of a second (the bench's
// 2,000 pages: 0.5-0.9 s, on PGlite on the server's own thread), and the next began a second
// later: half the time went to rewriting the same rows. Waiting longer writes them once for more
// groups; the backlog stays bounded because mergeAtViews staged views start a merge at once.
import type { Database } from '../../../db/database.ts';
import { Pump } from '../../../runtime/index.ts';
import { vacuumIngestTables } from './rollup-vacuum.ts';
import { mergeStagedViews } from './staged-views.ts';
import type { ViewSums } from './view-sums.ts';
import { backfillSketchBounds } from './visitor-bound-backfill.ts';
import { FOLD_INTERVAL_MS, foldStagedVisitors } from './visitor-staging.ts';

/** Sketch rows given their bounds per fold while any lack one (visitor-bound-backfill.ts). */
const BACKFILL_ROWS = 2000;

/** Where a failed merge or fold is reported (the app's logger; ingest's CommitLog fits). */
export interface MergeLog {
  error(details: object, message: string): void;
}

export interface StagedMergerOptions {
  /** How long after a group commit its views are merged when merges are quick (plus the merge). */
  delayMs: number;
  /** The wait after a merge is at least this many times that merge's duration... */
  paceFactor: number;
  /** ...and at most this long (unless delayMs is longer). */
  maxDelayMs: number;
  /** Staged views at which a merge starts at once, whatever the wait. */
  mergeAtViews: number;
  /** Vacuum ingest's tables after every this many merges that merged rows; 0: never. */
  vacuumEvery: number;
}

export const DEFAULT_STAGED_MERGER: StagedMergerOptions = {
  delayMs: 1000,
  paceFactor: 4,
  maxDelayMs: 10_000,
  // The writer passes a quarter of its maxStagedViews.
  mergeAtViews: 500_000,
  // PostgreSQL's autovacuum does it.
  vacuumEvery: 0,
};

/**
 * On PGlite a merge runs on the server's own thread, between the requests it answers, and its
 * upserts cost about 20 µs of that thread per rollup row (docs/ingestion.md, "PGlite's thread"):
 * merging half as often writes each busy key half as often. A read does not wait longer for it
 * (every export merges what is staged first, and a merge costs per key, not per view).
 */
export const PGLITE_PACE_FACTOR = 9;

/**
 * PGlite has no autovacuum (rollup-vacuum.ts). A vacuum of ingest's tables costs a few ms of the
 * thread (16 ms with 480,000 hourly rows stored), a merge of the bench's keys 250-350 ms.
 */
export const PGLITE_VACUUM_EVERY = 4;

/** The defaults on an engine: PGlite's merges are paced further apart. */
export function stagedMergerDefaults(kind: Database['kind']): StagedMergerOptions {
  return kind === 'pglite'
    ? { ...DEFAULT_STAGED_MERGER, paceFactor: PGLITE_PACE_FACTOR, vacuumEvery: PGLITE_VACUUM_EVERY }
    : DEFAULT_STAGED_MERGER;
}

/** The wait before the next merge, after one that took `mergeMs`. */
export function nextMergeDelay(options: StagedMergerOptions, mergeMs: number): number {
  const paced = Math.min(options.maxDelayMs, Math.ceil(options.paceFactor * mergeMs));
  return Math.max(options.delayMs, paced);
}

export class StagedViewMerger {
  readonly #db: Database;
  readonly #options: StagedMergerOptions;
  readonly #logger: MergeLog | undefined;
  /** One merge at a time; a group committed during one brings the next within the paced wait. */
  readonly #pump: Pump;
  /** What this process staged and has not merged yet, by staged row id: merged without reading back. */
  readonly #pending = new Map<number, ViewSums>();
  /** Their views (the overload check's measure). */
  #backlogViews = 0;
  /** When this merger last folded visitor ids into the sketches (performance.now()). */
  #lastFold = Number.NEGATIVE_INFINITY;
  /** Whether sketch rows may still lack a bound (false once a backfill found fewer than it asked). */
  #boundsLeft = true;
  /** The wait before the next merge, set by the last one's duration (nextMergeDelay). */
  #delayMs: number;
  /** Merges that merged rows since the last vacuum (options.vacuumEvery). */
  #mergesSinceVacuum = 0;

  constructor(db: Database, options: Partial<StagedMergerOptions> = {}, logger?: MergeLog) {
    this.#db = db;
    this.#options = { ...stagedMergerDefaults(db.kind), ...options };
    this.#logger = logger;
    this.#delayMs = this.#options.delayMs;
    this.#pump = new Pump({
      work: async () => {
        const started = performance.now();
        await this.#merge();
        this.#delayMs = nextMergeDelay(this.#options, performance.now() - started);
        // Groups committed during the merge may not all be in it: come back for them (at once
        // when they are already past mergeAtViews).
        if (this.#backlogViews >= this.#options.mergeAtViews) return 0;
        return this.#backlogViews > 0 ? this.#delayMs : undefined;
      },
      // A due merge is a pending write: like one, it keeps the process alive.
      keepAlive: true,
    });
  }

  /** The options in force (the engine's defaults under the caller's). */
  get options(): Readonly<StagedMergerOptions> {
    return this.#options;
  }

  get backlogViews(): number {
    return this.#backlogViews;
  }

  /** Merges at once whatever an earlier process left staged (it may have been killed). */
  start(): void {
    this.#pump.wakeWithin(0);
  }

  /** A group commit staged these sums as row `id`. */
  staged(id: number, sums: ViewSums): void {
    this.#pending.set(id, sums);
    this.#backlogViews += sums.views;
    if (this.#backlogViews >= this.#options.mergeAtViews) this.#pump.wake();
    else this.#pump.wakeWithin(this.#delayMs);
  }

  /** Stops the timer, waits for a running merge, then merges what is left. */
  async close(): Promise<void> {
    await this.#pump.stop();
    await this.#merge();
    await this.#fold(true);
  }

  /** Folds staged visitor ids into the sketches, at most every FOLD_INTERVAL_MS unless `now`. */
  async #fold(now: boolean): Promise<void> {
    if (!now && performance.now() - this.#lastFold < FOLD_INTERVAL_MS) return;
    this.#lastFold = performance.now();
    try {
      await foldStagedVisitors(this.#db);
      // Rows from before migration 0027 get their bounds a few thousand at a time.
      if (this.#boundsLeft)
        this.#boundsLeft = (await backfillSketchBounds(this.#db, BACKFILL_ROWS)) === BACKFILL_ROWS;
    } catch (error) {
      // Nothing is lost: the staged ids stay for the next fold (or a visitors export's).
      this.#logger?.error({ err: error }, 'folding visitor ids into the sketches failed; will retry');
    }
  }

  /** Vacuums every options.vacuumEvery merges (rollup-vacuum.ts). */
  async #vacuumNow(): Promise<void> {
    if (this.#options.vacuumEvery <= 0 || ++this.#mergesSinceVacuum < this.#options.vacuumEvery) return;
    this.#mergesSinceVacuum = 0;
    try {
      await vacuumIngestTables(this.#db);
    } catch (error) {
      // Nothing is lost: the space is reclaimed by the next one.
      this.#logger?.error({ err: error }, 'vacuuming the staged views and rollups failed');
    }
  }

  async #merge(): Promise<void> {
    // Taken before the merge: rows staged while it runs are left for the next one (or merged by
    // it as rows read back, and then found gone by the next one: counted once either way).
    const known = new Map(this.#pending);
    try {
      const merged = await mergeStagedViews(this.#db, known);
      // Merged now, or earlier by an export's merge: either way no longer this process's to merge.
      for (const [id, sums] of known) {
        this.#pending.delete(id);
        this.#backlogViews -= sums.views;
      }
      await this.#fold(false);
      if (merged.rows > 0) await this.#vacuumNow();
      if (merged.orphanViews > 0) {
        this.#logger?.error(
          { views: merged.orphanViews },
          'staged page views of deleted projects were dropped when merging',
        );
      }
    } catch (error) {
      // Nothing is lost: the staged rows stay and the next merge takes them.
      this.#logger?.error({ err: error }, 'merging staged page views failed; will retry');
    }
  }
}
