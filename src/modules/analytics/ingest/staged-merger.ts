// Merges the views an ingest writer staged (staged-views.ts) into the rollups, in the background:
// a while after the first group commit it was told of, then again as long as groups keep coming.
// Waiting a little is the point: a merge costs per distinct rollup key, so one merge per second
// under load writes each popular page's rows once instead of once per group commit. Exports do
// not wait for it: they merge what is staged themselves before reading.
import type { Database } from '../../../db/database.ts';
import { mergeStagedViews } from '../staged-views.ts';
import type { CommitLog } from './group-commit.ts';

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
  /** Views this process staged and has not seen merged yet (the overload check's measure). */
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

  /** A group commit staged these views. */
  staged(views: number): void {
    this.#backlogViews += views;
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
    // Counted before the merge: views staged while it runs may be left for the next one.
    const before = this.#backlogViews;
    try {
      const merged = await mergeStagedViews(this.#db);
      this.#backlogViews = Math.max(0, this.#backlogViews - before);
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
