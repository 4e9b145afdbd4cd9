// What a server process runs to keep its synced lists current: for the AI-agent list and the
// AI-referrer list alike, the synced version from the database at start, a refresh every
// DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS, and, when the list's URL is set
// (DOCWRIGHT_AGENT_LIST_SYNC_URL, DOCWRIGHT_REFERRER_LIST_SYNC_URL), a sync from it at start and
// every DOCWRIGHT_AGENT_LIST_SYNC_HOURS. A sync that fails or is refused is logged and changes
// nothing; the list in use stays.

import type { AgentListConfig } from '../../../config/config.ts';
import type { Database } from '../../../db/database.ts';
import type { Logger } from '../../../util/logger.ts';
import { AgentListRefresher, ReferrerListRefresher, type SyncedListRefresher } from './agent-list-refresh.ts';
import { readAgentListSource } from './agent-list-source.ts';
import { syncAgentList } from './agent-sync.ts';
import type { ClassificationContext } from './context.ts';
import { AgentSyncRefused, type SyncResult } from './list-sync.ts';
import { syncReferrerList } from './referrer-sync.ts';

export interface AgentListUpdates {
  refresher: AgentListRefresher;
  referrerRefresher: ReferrerListRefresher;
  /** Runs one scheduled sync of each list with a URL now (tests; the schedule calls it too). */
  syncNow(): Promise<void>;
  close(): Promise<void>;
}

type Logs = Pick<Logger, 'info' | 'warn'>;
type Sync = (
  db: Database,
  options: { text: string; source: string; maxDropShare: number },
) => Promise<SyncResult>;

/** One list's scheduled sync: at most one at a time; a new version is put to use at once. */
function scheduledSync(
  db: Database,
  label: string,
  url: string | null,
  sync: Sync,
  refresher: Pick<SyncedListRefresher<never>, 'refreshNow'>,
  config: AgentListConfig,
  logger: Logs,
): () => Promise<void> {
  let syncing: Promise<void> | null = null;
  return () => {
    if (url === null) return Promise.resolve();
    syncing ??= (async () => {
      try {
        const text = await readAgentListSource(url);
        const result = await sync(db, { text, source: url, maxDropShare: config.maxDropShare });
        logger.info(
          {
            version: result.version,
            changed: result.changed,
            added: result.added.length,
            removed: result.removed.length,
          },
          `${label}: scheduled sync done`,
        );
        if (result.changed) await refresher.refreshNow();
      } catch (error) {
        const refused = error instanceof AgentSyncRefused;
        logger.warn(
          { err: (error as Error).message, refused },
          `${label}: scheduled sync did not change the list`,
        );
      }
    })().finally(() => {
      syncing = null;
    });
    return syncing;
  };
}

async function startRefresher(
  refresher: Pick<SyncedListRefresher<never>, 'refreshNow' | 'start'>,
  label: string,
  logger: Logs,
): Promise<void> {
  await refresher.refreshNow().catch((error: unknown) => {
    logger.warn(
      { err: (error as Error).message },
      `${label}: cannot read the synced list; using the curated list`,
    );
  });
  refresher.start();
}

export async function startAgentListUpdates(
  db: Database,
  context: ClassificationContext,
  config: AgentListConfig,
  logger: Logs,
): Promise<AgentListUpdates> {
  const options = { intervalMs: config.refreshMs, logger };
  const refresher = new AgentListRefresher(db, context, options);
  const referrerRefresher = new ReferrerListRefresher(db, context, options);
  await startRefresher(refresher, 'agent list', logger);
  await startRefresher(referrerRefresher, 'AI-referrer list', logger);

  const referrerUrl = config.referrerSyncUrl ?? null;
  const syncs = [
    scheduledSync(db, 'agent list', config.syncUrl, syncAgentList, refresher, config, logger),
    scheduledSync(db, 'AI-referrer list', referrerUrl, syncReferrerList, referrerRefresher, config, logger),
  ];
  let running: Promise<unknown> | null = null;
  const syncNow = async (): Promise<void> => {
    running = Promise.all(syncs.map((sync) => sync()));
    await running;
  };

  let timer: NodeJS.Timeout | null = null;
  if (config.syncUrl !== null || referrerUrl !== null) {
    void syncNow();
    timer = setInterval(() => void syncNow(), config.syncIntervalMs);
    timer.unref();
  }
  return {
    refresher,
    referrerRefresher,
    syncNow,
    async close() {
      if (timer !== null) clearInterval(timer);
      await running?.catch(() => {});
      await refresher.stop();
      await referrerRefresher.stop();
    },
  };
}
