// Parses many pages at once: in this thread for a few, on worker threads for many, so that a
// 10,000-page repository is read in seconds and the server's event loop is not held meanwhile.
// Pages are handed over while they are still being read: the workers start (loading the parser
// takes each one about 50 ms of CPU) and parse the first batches while the rest is read.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type PageFacts, pageFacts } from './page-facts.ts';

export interface PageToParse {
  path: string;
  text: string;
}

/** Below this many pages, starting workers costs more than it saves. */
const INLINE_LIMIT = 400;
/** Pages seen before guessing whether the whole run will reach INLINE_LIMIT. */
const GUESS_AFTER = 64;
const MAX_WORKERS = 4;
/** Pages per message: few enough to keep both workers busy to the end, many enough to be cheap. */
const BATCH = 200;
/** Batches a worker holds at once, so it never waits for the next while the main thread is busy. */
const IN_FLIGHT = 2;

/** A batch's answer: the facts of its pages, in its order. */
interface BatchResult {
  id: number;
  facts: PageFacts[];
}

interface PoolWorker {
  worker: Worker;
  busy: number;
}

/**
 * One run's parsing. `add` the pages to parse as they are read (`skip` those that need none, so
 * the run's size can be guessed early); `finish` answers every page's facts, in the order added,
 * whichever thread parsed it: the result does not depend on the threads.
 */
export class PageParser {
  readonly #mdx: boolean;
  /** How many pages the run will see in all (added or skipped). */
  readonly #expected: number;
  readonly #pages: PageToParse[] = [];
  #skipped = 0;
  /** Pages added but not yet handed to a worker (all of them while no worker runs). */
  #queued = 0;
  #workers: PoolWorker[] | null = null;
  readonly #results: PageFacts[][] = [];
  #sent = 0;
  #answered = 0;
  #failure: Error | null = null;
  #settle: (() => void) | null = null;

  constructor(mdx: boolean, expected: number) {
    this.#mdx = mdx;
    this.#expected = expected;
  }

  add(page: PageToParse): void {
    this.#pages.push(page);
    this.#queued++;
    if (!this.#workers && this.#worthWorkers()) this.#start();
    this.#dispatch(false);
  }

  skip(): void {
    this.#skipped++;
  }

  async finish(): Promise<Map<string, PageFacts>> {
    if (!this.#workers && this.#pages.length >= INLINE_LIMIT && workerCount() >= 2) this.#start();
    if (!this.#workers) return parseInline(this.#pages, this.#mdx);
    try {
      this.#dispatch(true);
      await new Promise<void>((resolve) => {
        this.#settle = resolve;
        this.#check();
      });
      if (this.#failure) throw this.#failure;
    } finally {
      this.close();
    }
    const facts = new Map<string, PageFacts>();
    let next = 0;
    for (const batch of this.#results) for (const fact of batch) facts.set(this.#pages[next++]!.path, fact);
    return facts;
  }

  /** Stops the workers (finish does; a run that fails before finishing must). */
  close(): void {
    for (const { worker } of this.#workers ?? []) void worker.terminate();
    this.#workers = [];
  }

  /** Whether this run will have enough pages to parse for workers to pay, guessed from those seen. */
  #worthWorkers(): boolean {
    const added = this.#pages.length;
    if (workerCount() < 2 || added < GUESS_AFTER) return false;
    return (added / (added + this.#skipped)) * this.#expected >= INLINE_LIMIT;
  }

  #start(): void {
    this.#workers = Array.from({ length: workerCount() }, () => {
      const worker = new Worker(new URL('./parse-worker.ts', import.meta.url), {
        workerData: { mdx: this.#mdx },
      });
      const entry: PoolWorker = { worker, busy: 0 };
      worker.on('message', (result: BatchResult) => {
        this.#results[result.id] = result.facts;
        this.#answered++;
        entry.busy--;
        this.#dispatch(this.#settle !== null);
        this.#check();
      });
      worker.once('error', (error) => this.#fail(error));
      worker.once('exit', (code) => {
        if (code !== 0 && this.#answered < this.#sent)
          this.#fail(new Error(`The page parser worker stopped with exit code ${code}.`));
      });
      return entry;
    });
  }

  /** Hands full batches (and, once the run has ended, the last partial one) to idle workers. */
  #dispatch(ending: boolean): void {
    if (!this.#workers) return;
    while (this.#queued >= BATCH || (ending && this.#queued > 0)) {
      const idle = this.#workers.filter((entry) => entry.busy < IN_FLIGHT).sort((a, b) => a.busy - b.busy)[0];
      if (!idle) return;
      const from = this.#pages.length - this.#queued;
      const pages = this.#pages.slice(from, from + BATCH);
      this.#queued -= pages.length;
      idle.busy++;
      idle.worker.postMessage({ id: this.#sent++, pages });
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#check();
  }

  #check(): void {
    if (this.#settle && (this.#failure || (this.#queued === 0 && this.#answered === this.#sent))) {
      this.#settle();
    }
  }
}

function workerCount(): number {
  return Math.min(MAX_WORKERS, Math.max(1, availableParallelism()));
}

export function parseInline(pages: readonly PageToParse[], mdx: boolean): Map<string, PageFacts> {
  const facts = new Map<string, PageFacts>();
  for (const page of pages) facts.set(page.path, pageFacts(page.path, page.text, { mdx }));
  return facts;
}
