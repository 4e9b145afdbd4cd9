// A pump runs one piece of background work at a time: a wake while it runs makes it run once
// more right after (never twice at once, never a wake lost), and the work says when it wants to
// run next, which arms one timer. Every background loop of docwright is a pump: the work loop
// (jobs, webhook deliveries) and the staged-views merger.

export interface PumpOptions {
  /** Runs the work; resolves to the delay after which to run again, or undefined to keep the timer. */
  work: () => Promise<number | undefined>;
  /** Let the timer keep the process alive (a merger's last merge must not be skipped by an exit). */
  keepAlive?: boolean;
}

export class Pump {
  readonly #options: PumpOptions;
  #running: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: PumpOptions) {
    this.#options = options;
  }

  /** Whether the work is running now. */
  get running(): boolean {
    return this.#running !== null;
  }

  /** Run now, or once more as soon as the run under way ends. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running !== null) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Run within delayMs, unless a run is under way or already due sooner. */
  wakeWithin(delayMs: number): void {
    if (this.#stopped || this.#running !== null || this.#timer !== null) return;
    this.#arm(delayMs);
  }

  /** Stops the timer and further runs; resolves when the run under way has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clear();
    await this.#running;
  }

  async #run(): Promise<void> {
    const next = await this.#options.work();
    if (next !== undefined) this.#arm(next);
  }

  #arm(delayMs: number): void {
    this.#clear();
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.wake();
    }, delayMs);
    if (!this.#options.keepAlive) this.#timer.unref();
  }

  #clear(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
