// The loop shared by every queue kept in the database (jobs, webhook deliveries): claim due items
// with a lease, run them with bounded concurrency, wake on a NOTIFY or a timer, stop gracefully.
// What an item is, how it is claimed (FOR UPDATE SKIP LOCKED with a lease, in the owner's SQL)
// and what running it means stay with the owner.
import { Pump } from './pump.ts';

/** What the loop needs of the database: LISTEN (PostgreSQL) or its in-process stand-in (PGlite). */
export interface NotificationSource {
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
}

export interface WorkLoopOptions<Item> {
  /** Items run at once. */
  concurrency: number;
  /** The longest the loop goes without looking: catches leases of dead workers and lost notifications. */
  pollIntervalMs: number;
  /** Wake on each NOTIFY on this channel. */
  notifications?: {
    source: NotificationSource;
    channel: string;
    /** Sees each payload first; returns true when it dealt with it and no wake is needed. */
    intercept?: (payload: string) => boolean;
  };
  /** Runs before each round of claims (e.g. giving up items out of tries). */
  beforeClaim?: () => Promise<void>;
  /** Claims up to limit due items (with a lease, skipping rows other workers hold). */
  claim: (limit: number) => Promise<Item[]>;
  /** The most items one claim returns (default: as many as there is room for). */
  claimBatch?: number;
  /** Runs one item; aborted when stop()'s grace runs out. Its failures go to onRunError. */
  run: (item: Item, signal: AbortSignal) => Promise<void>;
  /** How long until an item not yet due will be (e.g. a retry), so the loop wakes for it. */
  untilNextDueMs?: () => Promise<number>;
  /** A failed claim round; the loop looks again after pollIntervalMs. */
  onClaimError: (error: unknown) => void;
  /** A run that failed without dealing with its failure. */
  onRunError: (error: unknown, item: Item) => void;
}

/** A wake for an item due soon is never armed shorter: clock skew must not make a busy loop. */
const MIN_WAKE_MS = 5;

export class WorkLoop<Item> {
  readonly #options: WorkLoopOptions<Item>;
  readonly #pump: Pump;
  readonly #inFlight = new Map<Promise<void>, AbortController>();
  #started = false;
  #stopping = false;
  #unlisten: (() => Promise<void>) | null = null;
  /**
   * False from the start of a claim round until it sends its first claim. A wake meanwhile (the
   * NOTIFY and the in-process nudge of one job created in this process arrive together) is seen
   * by that claim, so it asks for no further round: one round trip to the database fewer per
   * job, on the way to its start.
   */
  #claimSent = true;

  constructor(options: WorkLoopOptions<Item>) {
    this.#options = options;
    this.#pump = new Pump({ work: () => this.#claimRound() });
  }

  /** Items running now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** Listens (a failure to listen rejects: the database is away at start) and looks for work. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const notifications = this.#options.notifications;
    if (notifications) {
      this.#unlisten = await notifications.source.listen(notifications.channel, (payload) => {
        if (notifications.intercept?.(payload)) return;
        this.wake();
      });
    }
    this.wake();
  }

  /** Look for due items now. */
  wake(): void {
    if (this.#stopping || !this.#started) return;
    if (this.#pump.running && !this.#claimSent) return;
    this.#pump.wake();
  }

  /**
   * Stops claiming, waits up to graceMs for the items under way, then aborts the rest and waits
   * for them to end.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.#stopping = true;
    await this.#unlisten?.().catch(() => {});
    this.#unlisten = null;
    await this.#pump.stop();
    if (Number.isFinite(graceMs)) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all(this.#inFlight.keys()), graceOver]);
      clearTimeout(timer);
      for (const controller of this.#inFlight.values()) controller.abort(new Error('shutting down'));
    }
    await Promise.all(this.#inFlight.keys());
  }

  /** Claims while there is room; resolves to when to look again. */
  async #claimRound(): Promise<number> {
    const { beforeClaim, claim, claimBatch, concurrency, pollIntervalMs, untilNextDueMs } = this.#options;
    this.#claimSent = false;
    try {
      await beforeClaim?.();
      while (!this.#stopping) {
        const room = concurrency - this.#inFlight.size;
        // A finishing item wakes the loop again (it made room, so that wake is not dropped: room
        // is counted after it); the poll still runs beforeClaim meanwhile.
        if (room <= 0) return pollIntervalMs;
        const limit = Math.min(room, claimBatch ?? room);
        this.#claimSent = true;
        const claimed = await claim(limit);
        for (const item of claimed) this.#launch(item);
        if (claimed.length < limit) break;
      }
      if (this.#stopping || !untilNextDueMs) return pollIntervalMs;
      return Math.max(MIN_WAKE_MS, Math.min(await untilNextDueMs(), pollIntervalMs));
    } catch (error) {
      this.#options.onClaimError(error);
      return pollIntervalMs;
    } finally {
      // Whatever wakes the loop after this round's last look gets a round of its own.
      this.#claimSent = true;
    }
  }

  #launch(item: Item): void {
    const controller = new AbortController();
    // Started synchronously, so the owner sees the item as running before the next claim.
    const task: Promise<void> = (async () => this.#options.run(item, controller.signal))()
      .catch((error: unknown) => {
        // A rejection left unhandled would end the process; the lease brings the item back.
        this.#options.onRunError(error, item);
      })
      .finally(() => {
        this.#inFlight.delete(task);
        this.wake();
      });
    this.#inFlight.set(task, controller);
  }
}
