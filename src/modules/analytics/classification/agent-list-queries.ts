// Plain SQL over agent_list_versions (db/migrations/0011_agent_list_versions.sql).
import type { Queryable } from '../../../db/database.ts';
import type { AgentEntry } from './agent-list.ts';

export type AgentListFormat = 'robots_json' | 'docwright';

export interface StoredAgentList {
  version: number;
  source: string;
  format: AgentListFormat;
  entries: AgentEntry[];
  skipped: { token: string; reason: string }[];
  syncedAt: Date;
}

interface Row {
  version: number;
  source: string;
  format: AgentListFormat;
  entries: AgentEntry[];
  skipped: { token: string; reason: string }[];
  synced_at: Date;
}

function toStored(row: Row): StoredAgentList {
  return {
    version: row.version,
    source: row.source,
    format: row.format,
    entries: row.entries,
    skipped: row.skipped,
    syncedAt: row.synced_at,
  };
}

/** The newest version's number; 0 when nothing was ever synced. Cheap: the processes poll it. */
export async function selectLatestAgentListVersion(db: Queryable): Promise<number> {
  const rows = await db.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM agent_list_versions',
  );
  return rows[0]?.version ?? 0;
}

export async function selectLatestAgentList(db: Queryable): Promise<StoredAgentList | null> {
  const rows = await db.query<Row>(
    'SELECT version, source, format, entries, skipped, synced_at FROM agent_list_versions ORDER BY version DESC LIMIT 1',
  );
  return rows[0] ? toStored(rows[0]) : null;
}

/**
 * Adds the next version. Two syncs at once would pick the same number: the second fails on the
 * primary key and changes nothing.
 */
export async function insertAgentListVersion(
  db: Queryable,
  list: Pick<StoredAgentList, 'source' | 'format' | 'entries' | 'skipped'>,
): Promise<{ version: number; syncedAt: Date }> {
  const rows = await db.query<{ version: number; synced_at: Date }>(
    `INSERT INTO agent_list_versions (version, source, format, entries, skipped)
     SELECT coalesce(max(version), 0) + 1, $1, $2, $3::jsonb, $4::jsonb FROM agent_list_versions
     RETURNING version, synced_at`,
    [list.source, list.format, JSON.stringify(list.entries), JSON.stringify(list.skipped)],
  );
  return { version: rows[0]!.version, syncedAt: rows[0]!.synced_at };
}
