// The synced AI-agent list's versions (db/migrations/0011_agent_list_versions.sql), through the
// queries every synced list shares (list-versions.ts).
import type { Queryable } from '../../../db/database.ts';
import type { AgentEntry } from './agent-list.ts';
import {
  insertVersion,
  type StoredListVersion,
  selectLatestVersion,
  selectLatestVersionNumber,
} from './list-versions.ts';

export type AgentListFormat = 'robots_json' | 'docwright';

export type StoredAgentList = StoredListVersion<AgentEntry, AgentListFormat>;

/** The newest version's number; 0 when nothing was ever synced. Cheap: the processes poll it. */
export function selectLatestAgentListVersion(db: Queryable): Promise<number> {
  return selectLatestVersionNumber(db, 'agent_list_versions');
}

export function selectLatestAgentList(db: Queryable): Promise<StoredAgentList | null> {
  return selectLatestVersion(db, 'agent_list_versions');
}

/** Adds the next version (list-versions.ts: two syncs at once cannot both add one). */
export function insertAgentListVersion(
  db: Queryable,
  list: Pick<StoredAgentList, 'source' | 'format' | 'entries' | 'skipped'>,
): Promise<{ version: number; syncedAt: Date }> {
  return insertVersion(db, 'agent_list_versions', list);
}
