// What a server process runs to keep its agent list current: the synced version from the
// database at start, a refresh every DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS, and, when
// DOCWRIGHT_AGENT_LIST_SYNC_URL is set, a sync from that URL at start and every
// DOCWRIGHT_AGENT_LIST_SYNC_HOURS. A sync that fails or is refused is logged and changes
// nothing; the list in use stays.

import type { AgentListConfig } from '../../../config/config.ts';
import type { Database } from '../../../db/database.ts';
import type { Logger } from '../../../util/logger.ts';
import { AgentListRefresher } from './agent-list-refresh.ts';
import { readAgentListSource } from './agent-list-source.ts';
import { AgentSyncRefused, syncAgentList } from './agent-sync.ts';
import type { ClassificationContext } from './context.ts';

export interface AgentListUpdates {
  refresher: AgentListRefresher;
  /** Runs one scheduled sync now (tests; the schedule calls it too). */
  syncNow(): Promise<void>;
  close(): Promise<void>;
}

export async function startAgentListUpdates(
  db: Database,
  context: ClassificationContext,
  config: AgentListConfig,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<AgentListUpdates> {
  const refresher = new AgentListRefresher(db, context, { intervalMs: config.refreshMs, logger });
  await refresher.refreshNow().catch((error: unknown) => {
    logger.warn(
      { err: (error as Error).message },
      'agent list: cannot read the synced list; using the curated list',
    );
  });
  refresher.start();

  let syncing: Promise<void> | null = null;
  const syncNow = (): Promise<void> => {
    const url = config.syncUrl;
    if (url === null) return Promise.resolve();
    syncing ??= (async () => {
      try {
        const text = await readAgentListSource(url);
        const result = await syncAgentList(db, { text, source: url, maxDropShare: config.maxDropShare });
        logger.info(
          {
            version: result.version,
            changed: result.changed,
            added: result.added.length,
            removed: result.removed.length,
          },
          'agent list: scheduled sync done',
        );
        if (result.changed) await refresher.refreshNow();
      } catch (error) {
        const refused = error instanceof AgentSyncRefused;
        logger.warn(
          { err: (error as Error).message, refused },
          'agent list: scheduled sync did not change the list',
        );
      }
    })().finally(() => {
      syncing = null;
    });
    return syncing;
  };

  let timer: NodeJS.Timeout | null = null;
  if (config.syncUrl !== null) {
    void syncNow();
    timer = setInterval(() => void syncNow(), config.syncIntervalMs);
    timer.unref();
  }
  return {
    refresher,
    syncNow,
    async close() {
      if (timer !== null) clearInterval(timer);
      await syncing?.catch(() => {});
      await refresher.stop();
    },
  };
}
