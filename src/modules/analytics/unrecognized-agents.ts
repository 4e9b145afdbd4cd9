// The unknown-agents report: views from automated-looking user agents that the AI-agent list
// does not name (classification/unrecognized-agent.ts), per project and product token.
//
// Counting stays off the ingest hot path: the per-user-agent profile already carries the
// unrecognized agent (worked out once per distinct string), a batch only bumps a counter per
// such profile (UnrecognizedTally), and after the batch is committed the process adds the
// batch's few rows to an in-memory total (UnrecognizedAgentCounter) that is written every few
// seconds in one statement. A crash loses at most that interval's counts of this report; the
// page views themselves are committed as always.

import type { Database } from '../../db/database.ts';
import type { Logger } from '../../util/logger.ts';
import type { TrafficClass } from './classification/types.ts';
import type { UnrecognizedAgent, UnrecognizedReason } from './classification/unrecognized-agent.ts';
import {
  selectUnrecognizedAgents,
  type UnrecognizedRowInput,
  upsertUnrecognizedAgents,
} from './unrecognized-queries.ts';

/** One batch's counts, per unrecognized agent (the profile's own object: no key is built). */
export class UnrecognizedTally {
  readonly counts = new Map<UnrecognizedAgent, { bot: number; human: number }>();

  add(agent: UnrecognizedAgent, trafficClass: TrafficClass): void {
    if (trafficClass === 'ai') return; // a Markdown fetch made it AI after all
    let count = this.counts.get(agent);
    if (count === undefined) {
      count = { bot: 0, human: 0 };
      this.counts.set(agent, count);
    }
    count[trafficClass]++;
  }
}

// Rows held between writes; beyond it new products wait for the next interval (counts of rows
// already held still add up).
const MAX_PENDING = 10_000;

export class UnrecognizedAgentCounter {
  readonly #db: Database;
  readonly #flushMs: number;
  readonly #logger: Pick<Logger, 'warn'> | undefined;
  #pending = new Map<string, UnrecognizedRowInput>();
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> = Promise.resolve();

  constructor(db: Database, options: { flushMs?: number; logger?: Pick<Logger, 'warn'> } = {}) {
    this.#db = db;
    this.#flushMs = options.flushMs ?? 5_000;
    this.#logger = options.logger;
  }

  /** Adds a committed batch's counts. */
  add(projectId: string, tally: UnrecognizedTally, atMs: number): void {
    if (tally.counts.size === 0) return;
    const at = new Date(atMs);
    for (const [agent, count] of tally.counts) {
      for (const trafficClass of ['bot', 'human'] as const) {
        const views = count[trafficClass];
        if (views === 0) continue;
        const productKey = agent.product.toLowerCase();
        const key = `${projectId}\u0000${productKey}\u0000${trafficClass}`;
        const row = this.#pending.get(key);
        if (row !== undefined) {
          row.views += views;
          row.lastSeen = at;
        } else if (this.#pending.size < MAX_PENDING) {
          this.#pending.set(key, {
            projectId,
            productKey,
            trafficClass,
            product: agent.product,
            reason: agent.reason,
            example: agent.example,
            views,
            firstSeen: at,
            lastSeen: at,
          });
        }
      }
    }
    this.#start();
  }

  #start(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, this.#flushMs);
    this.#timer.unref();
  }

  /** Writes what is held; the report's reader calls it first, so it sees every committed batch. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#pending.size === 0) return;
      const rows = [...this.#pending.values()];
      this.#pending = new Map();
      try {
        await upsertUnrecognizedAgents(this.#db, rows);
      } catch (error) {
        this.#logger?.warn(
          { err: (error as Error).message, rows: rows.length },
          'unrecognized agents: counts not written',
        );
      }
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.flush();
  }
}

export interface UnrecognizedAgentReport {
  agents: {
    product: string;
    class: 'bot' | 'human';
    reason: UnrecognizedReason;
    views: number;
    firstSeen: string;
    lastSeen: string;
    example: string;
  }[];
  hasMore: boolean;
}

export async function exportUnrecognizedAgents(
  db: Database,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<UnrecognizedAgentReport> {
  const rows = await selectUnrecognizedAgents(db, projectId, { limit: page.limit + 1, offset: page.offset });
  return {
    agents: rows.slice(0, page.limit).map((row) => ({
      product: row.product,
      class: row.class,
      reason: row.reason as UnrecognizedReason,
      views: Number(row.views),
      firstSeen: row.first_seen.toISOString(),
      lastSeen: row.last_seen.toISOString(),
      example: row.example,
    })),
    hasMore: rows.length > page.limit,
  };
}
