// Keeps a process's agent list on the newest synced version: every interval it reads the newest
// version number (one cheap query), and when it is newer than the one in use, loads that version
// and swaps it in (context.ts useSyncedAgents). A failed check keeps the list in use and is
// logged; the next tick tries again. Every API process polls the same table, so all of them use
// the same list within one interval of a sync.

import type { Database } from '../../../db/database.ts';
import type { Logger } from '../../../util/logger.ts';
import { AgentListError } from './agent-list.ts';
import { selectLatestAgentList, selectLatestAgentListVersion } from './agent-list-queries.ts';
import { type ClassificationContext, useSyncedAgents } from './context.ts';

export interface AgentListRefreshOptions {
  intervalMs: number;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

export class AgentListRefresher {
  readonly #db: Database;
  readonly #context: ClassificationContext;
  readonly #options: AgentListRefreshOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<boolean> | null = null;

  constructor(db: Database, context: ClassificationContext, options: AgentListRefreshOptions) {
    this.#db = db;
    this.#context = context;
    this.#options = options;
  }

  /** Loads the newest version when it is not the one in use; true when the list changed. */
  refreshNow(): Promise<boolean> {
    // One check at a time: a slow database must not pile ticks up.
    this.#running ??= this.#refresh().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #refresh(): Promise<boolean> {
    const latest = await selectLatestAgentListVersion(this.#db);
    if (latest === 0 || latest === this.#context.agentList?.version) return false;
    const stored = await selectLatestAgentList(this.#db);
    if (stored === null) return false;
    useSyncedAgents(this.#context, stored);
    this.#options.logger?.info(
      { version: stored.version, source: stored.source, entries: stored.entries.length },
      'agent list: using synced version',
    );
    return true;
  }

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      this.refreshNow().catch((error: unknown) => {
        const detail = error instanceof AgentListError ? error.message : (error as Error).message;
        this.#options.logger?.warn({ err: detail }, 'agent list: refresh failed; keeping the list in use');
      });
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => {});
  }
}
