// Keeps a process's synced lists (the AI-agent list, the AI-referrer list) on their newest
// versions: every interval it reads the newest version number (one cheap query), and when it is
// newer than the one in use, loads that version and swaps it in (context.ts useSyncedAgents,
// useSyncedReferrers). A failed check keeps the list in use and is logged; the next tick tries
// again. Every API process polls the same table, so all of them use the same list within one
// interval of a sync.

import type { Database } from '../../../db/database.ts';
import type { Logger } from '../../../util/logger.ts';
import { AgentListError } from './agent-list.ts';
import {
  type StoredAgentList,
  selectLatestAgentList,
  selectLatestAgentListVersion,
} from './agent-list-queries.ts';
import type { ReferrerEntry } from './ai-referrers.ts';
import { type ClassificationContext, useSyncedAgents, useSyncedReferrers } from './context.ts';
import {
  type ListVersionsTable,
  type StoredListVersion,
  selectLatestVersion,
  selectLatestVersionNumber,
} from './list-versions.ts';

export interface AgentListRefreshOptions {
  intervalMs: number;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

/** One synced list: where its versions are, which is in use, and how a new one is put to use. */
interface SyncedList<Stored extends StoredListVersion<unknown, string>> {
  /** For the logs: "agent list", "AI-referrer list". */
  label: string;
  latestVersion(db: Database): Promise<number>;
  latest(db: Database): Promise<Stored | null>;
  inUse(): number | undefined;
  use(stored: Stored): void;
}

export class SyncedListRefresher<Stored extends StoredListVersion<unknown, string>> {
  readonly #db: Database;
  readonly #list: SyncedList<Stored>;
  readonly #options: AgentListRefreshOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<boolean> | null = null;

  constructor(db: Database, list: SyncedList<Stored>, options: AgentListRefreshOptions) {
    this.#db = db;
    this.#list = list;
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
    const latest = await this.#list.latestVersion(this.#db);
    if (latest === 0 || latest === this.#list.inUse()) return false;
    const stored = await this.#list.latest(this.#db);
    if (stored === null) return false;
    this.#list.use(stored);
    this.#options.logger?.info(
      { version: stored.version, source: stored.source, entries: stored.entries.length },
      `${this.#list.label}: using synced version`,
    );
    return true;
  }

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      this.refreshNow().catch((error: unknown) => {
        const detail = error instanceof AgentListError ? error.message : (error as Error).message;
        this.#options.logger?.warn(
          { err: detail },
          `${this.#list.label}: refresh failed; keeping the list in use`,
        );
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

/** The AI-agent list's refresher (agent_list_versions). */
export class AgentListRefresher extends SyncedListRefresher<StoredAgentList> {
  constructor(db: Database, context: ClassificationContext, options: AgentListRefreshOptions) {
    super(
      db,
      {
        label: 'agent list',
        latestVersion: selectLatestAgentListVersion,
        latest: selectLatestAgentList,
        inUse: () => context.agentList?.version,
        use: (stored) => useSyncedAgents(context, stored),
      },
      options,
    );
  }
}

const REFERRERS: ListVersionsTable = 'ai_referrer_list_versions';

/** The AI-referrer list's refresher (ai_referrer_list_versions). */
export class ReferrerListRefresher extends SyncedListRefresher<StoredListVersion<ReferrerEntry, string>> {
  constructor(db: Database, context: ClassificationContext, options: AgentListRefreshOptions) {
    super(
      db,
      {
        label: 'AI-referrer list',
        latestVersion: (db) => selectLatestVersionNumber(db, REFERRERS),
        latest: (db) => selectLatestVersion(db, REFERRERS),
        inUse: () => context.referrerList?.version,
        use: (stored) => useSyncedReferrers(context, stored),
      },
      options,
    );
  }
}
