// Merges the views an ingest writer staged (staged-views.ts) into the rollups, in the background:
// a while after the first group commit it was told of, then again as long as groups keep coming.
// Waiting a little is the point: a merge costs per distinct rollup key, so one merge per second
// under load writes each popular page's rows once instead of once per group commit. Exports do
// not wait for it: they merge what is staged themselves before reading.
import type { Database } from '../../../db/database.ts';
import { mergeStagedViews } from '../staged-views.ts';
import type { ViewSums } from '../view-sums.ts';
import type { CommitLog } from './commit-log.ts';

export interface StagedMergerOptions {
  /** How long after a group commit its views are merged, at most (plus the merge itself). */
  delayMs: number;
}

export const DEFAULT_STAGED_MERGER: StagedMergerOptions = { delayMs: 1000 };

export class StagedViewMerger {
  readonly #db: Database;
  readonly #options: StagedMergerOptions;
  readonly #logger: CommitLog | undefined;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  /** What this process staged and has not merged yet, by staged row id: merged without reading back. */
  readonly #pending = new Map<number, ViewSums>();
  /** Their views (the overload check's measure). */
  #backlogViews = 0;
  #closed = false;

  constructor(db: Database, options: Partial<StagedMergerOptions> = {}, logger?: CommitLog) {
    this.#db = db;
    this.#options = { ...DEFAULT_STAGED_MERGER, ...options };
    this.#logger = logger;
  }

  get backlogViews(): number {
    return this.#backlogViews;
  }

  /** Merges at once whatever an earlier process left staged (it may have been killed). */
  start(): void {
    this.#schedule(0);
  }

  /** A group commit staged these sums as row `id`. */
  staged(id: number, sums: ViewSums): void {
    this.#pending.set(id, sums);
    this.#backlogViews += sums.views;
    this.#schedule(this.#options.delayMs);
  }

  /** Stops the timer, waits for a running merge, then merges what is left. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
    await this.#merge();
  }

  #schedule(delayMs: number): void {
    if (this.#closed || this.#timer !== null || this.#running !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#running = this.#merge().finally(() => {
        this.#running = null;
        // Groups committed during the merge may not all be in it: come back for them.
        if (this.#backlogViews > 0) this.#schedule(this.#options.delayMs);
      });
    }, delayMs);
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
