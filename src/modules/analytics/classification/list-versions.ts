// Plain SQL over the tables that hold a synced list's versions: agent_list_versions (0011) and
// ai_referrer_list_versions (0025) have the same columns, so one set of queries serves both. The
// table name is one of the two literals below, never text from outside.
import type { Queryable } from '../../../db/database.ts';

export type ListVersionsTable = 'agent_list_versions' | 'ai_referrer_list_versions';

export interface StoredListVersion<Entry, Format extends string> {
  version: number;
  source: string;
  format: Format;
  entries: Entry[];
  skipped: { token: string; reason: string }[];
  syncedAt: Date;
}

interface Row<Entry, Format extends string> {
  version: number;
  source: string;
  format: Format;
  entries: Entry[];
  skipped: { token: string; reason: string }[];
  synced_at: Date;
}

/** The newest version's number; 0 when nothing was ever synced. Cheap: the processes poll it. */
export async function selectLatestVersionNumber(db: Queryable, table: ListVersionsTable): Promise<number> {
  const rows = await db.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${table}`);
  return rows[0]?.version ?? 0;
}

export async function selectLatestVersion<Entry, Format extends string>(
  db: Queryable,
  table: ListVersionsTable,
): Promise<StoredListVersion<Entry, Format> | null> {
  const rows = await db.query<Row<Entry, Format>>(
    `SELECT version, source, format, entries, skipped, synced_at FROM ${table} ORDER BY version DESC LIMIT 1`,
  );
  const row = rows[0];
  if (row === undefined) return null;
  return {
    version: row.version,
    source: row.source,
    format: row.format,
    entries: row.entries,
    skipped: row.skipped,
    syncedAt: row.synced_at,
  };
}

/**
 * Adds the next version. Two syncs at once would pick the same number: the second fails on the
 * primary key and changes nothing.
 */
export async function insertVersion<Entry, Format extends string>(
  db: Queryable,
  table: ListVersionsTable,
  list: Pick<StoredListVersion<Entry, Format>, 'source' | 'format' | 'entries' | 'skipped'>,
): Promise<{ version: number; syncedAt: Date }> {
  const rows = await db.query<{ version: number; synced_at: Date }>(
    `INSERT INTO ${table} (version, source, format, entries, skipped)
     SELECT coalesce(max(version), 0) + 1, $1, $2, $3::jsonb, $4::jsonb FROM ${table}
     RETURNING version, synced_at`,
    [list.source, list.format, JSON.stringify(list.entries), JSON.stringify(list.skipped)],
  );
  return { version: rows[0]!.version, syncedAt: rows[0]!.synced_at };
}
