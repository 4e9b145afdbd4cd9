// One LISTEN per process and database for new job events, fanned out to the streams that watch
// each job. On PostgreSQL a LISTEN holds a connection of its own: one per open stream would
// exhaust the server's connections long before the streams mattered. The listener starts with
// the first subscriber and stops with the last one.
import type { Database } from '../../../db/database.ts';

/** Sent by the job_events insert trigger (db/migrations/0005) with the job id as payload. */
export const JOB_EVENTS_CHANNEL = 'docwright_job_events';

export type Unsubscribe = () => void;

export class JobEventHub {
  private readonly db: Database;
  private readonly subscribers = new Map<string, Set<() => void>>();
  private count = 0;
  private unlisten: (() => Promise<void>) | null = null;
  /** Starting and stopping the listener run one after another, never interleaved. */
  private transitions: Promise<void> = Promise.resolve();

  constructor(db: Database) {
    this.db = db;
  }

  /** How many streams are subscribed (all jobs). */
  get subscriberCount(): number {
    return this.count;
  }

  /** Whether this hub holds its LISTEN now. */
  get listening(): boolean {
    return this.unlisten !== null;
  }

  /**
   * Calls wake whenever an event of jobId is committed. Resolves once the listener is active, so
   * a caller that reads the stored events afterwards misses nothing in between.
   */
  async subscribe(jobId: string, wake: () => void): Promise<Unsubscribe> {
    let set = this.subscribers.get(jobId);
    if (!set) {
      set = new Set();
      this.subscribers.set(jobId, set);
    }
    // A function object per subscription, so the same callback may subscribe twice.
    const entry = () => wake();
    set.add(entry);
    this.count++;
    let active = true;
    const unsubscribe = () => {
      if (!active) return;
      active = false;
      const current = this.subscribers.get(jobId);
      current?.delete(entry);
      if (current?.size === 0) this.subscribers.delete(jobId);
      this.count--;
      // Nobody waits on this one: a failure (a LISTEN started meanwhile for a new subscriber,
      // with the database away) is that subscriber's to see, never an unhandled rejection.
      this.settle().catch(() => {});
    };
    try {
      await this.settle();
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  private onNotify(jobId: string): void {
    for (const wake of this.subscribers.get(jobId) ?? []) wake();
  }

  /** Brings the listener in line with the subscriber count. */
  private settle(): Promise<void> {
    const next = this.transitions.then(async () => {
      if (this.count > 0 && this.unlisten === null) {
        this.unlisten = await this.db.listen(JOB_EVENTS_CHANNEL, (jobId) => this.onNotify(jobId));
      } else if (this.count === 0 && this.unlisten !== null) {
        const stop = this.unlisten;
        this.unlisten = null;
        await stop().catch(() => {});
      }
    });
    // A failed LISTEN fails its subscriber; the next subscriber tries again.
    this.transitions = next.catch(() => {});
    return next;
  }
}

const hubs = new WeakMap<Database, JobEventHub>();

/** The hub of this database in this process (created on first use). */
export function jobEventHub(db: Database): JobEventHub {
  let hub = hubs.get(db);
  if (!hub) {
    hub = new JobEventHub(db);
    hubs.set(db, hub);
  }
  return hub;
}
