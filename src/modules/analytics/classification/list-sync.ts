// What every synced list (the AI-agent list, the AI-referrer list) does with the entries a source
// brought once they are parsed: refuse a sync that would drop too many stored entries, and store
// them as the next version unless they equal the current one. Runs in one transaction, so a
// refused sync changes nothing.
import type { Database } from '../../../db/database.ts';
import { insertVersion, type ListVersionsTable, selectLatestVersion } from './list-versions.ts';

export class AgentSyncRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentSyncRefused';
  }
}

export interface SyncResult<Format extends string = string> {
  /** The version now in use; the previous one when nothing changed. */
  version: number;
  changed: boolean;
  source: string;
  format: Format;
  entries: number;
  added: string[];
  removed: string[];
  skipped: { token: string; reason: string }[];
  syncedAt: string;
}

/** A source's entries ready to store, and what of it was not used. */
export interface PreparedList<Entry extends { name: string }, Format extends string> {
  format: Format;
  entries: Entry[];
  skipped: { token: string; reason: string }[];
}

/** JSON with object keys sorted: jsonb gives keys back in its own order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** The text of a list as JSON; a sync of anything else is refused. */
export function parseListText(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AgentSyncRefused(
      `The list from ${source} is not JSON (${(error as Error).message}); nothing changed.`,
    );
  }
}

/**
 * Refuses a sync that would drop more than maxDropShare (0..1) of the stored entries. Entries the
 * curated list now covers (a release added them) are not dropped: they are still matched.
 */
export function checkDrop(
  previous: { entries: readonly { name: string }[] } | null,
  next: readonly { name: string }[],
  maxDropShare: number,
  source: string,
  covered: ReadonlySet<string> = new Set(),
): void {
  if (previous === null || previous.entries.length === 0) return;
  const kept = new Set(next.map((entry) => entry.name.toLowerCase()));
  const dropped = previous.entries.filter(
    (entry) => !kept.has(entry.name.toLowerCase()) && !covered.has(entry.name.toLowerCase()),
  ).length;
  const share = dropped / previous.entries.length;
  if (share > maxDropShare) {
    throw new AgentSyncRefused(
      `The list from ${source} would drop ${dropped} of the ${previous.entries.length} synced entries ` +
        `(${Math.round(share * 100)}%), more than the ${Math.round(maxDropShare * 100)}% allowed ` +
        '(DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT, or --max-drop-percent); nothing changed. ' +
        'Check that the source is the list you meant.',
    );
  }
}

export interface StoreSyncOptions {
  source: string;
  /** 0..1: the share of stored entries a sync may drop. */
  maxDropShare: number;
  /** Names (lower case) the curated list answers to: leaving them out of a sync drops nothing. */
  covered: ReadonlySet<string>;
}

/** Stores the prepared entries as the next version unless they equal the current one. */
export async function storeSyncedList<Entry extends { name: string }, Format extends string>(
  db: Database,
  table: ListVersionsTable,
  prepared: PreparedList<Entry, Format>,
  options: StoreSyncOptions,
): Promise<SyncResult<Format>> {
  return db.transaction(async (tx) => {
    const previous = await selectLatestVersion<Entry, Format>(tx, table);
    checkDrop(previous, prepared.entries, options.maxDropShare, options.source, options.covered);
    const before = new Set((previous?.entries ?? []).map((entry) => entry.name));
    const after = new Set(prepared.entries.map((entry) => entry.name));
    const base = {
      source: options.source,
      format: prepared.format,
      entries: prepared.entries.length,
      added: [...after].filter((name) => !before.has(name)),
      removed: [...before].filter((name) => !after.has(name)),
      skipped: prepared.skipped,
    };
    if (previous !== null && canonical(previous.entries) === canonical(prepared.entries)) {
      return {
        ...base,
        version: previous.version,
        changed: false,
        syncedAt: previous.syncedAt.toISOString(),
      };
    }
    const stored = await insertVersion(tx, table, { ...prepared, source: options.source });
    return { ...base, version: stored.version, changed: true, syncedAt: stored.syncedAt.toISOString() };
  });
}
