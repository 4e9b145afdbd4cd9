// `docwright agents sync --referrers` and the server's scheduled referrer sync: a list in the
// format of data/ai-referrers.json becomes the next stored version of the synced AI-referrer list
// (ai_referrer_list_versions), which every process picks up (referrer-list-refresh.ts), as the
// agent list's sync does (agent-sync.ts, with which it shares storing and the drop check). The
// curated list is never stored and wins: an assistant it names is skipped, and hosts and
// utm_source values it already gives to an assistant are left out of the synced entries.
import type { Database, Queryable } from '../../../db/database.ts';
import {
  curatedAiReferrers,
  parseReferrerListDocument,
  type ReferrerEntry,
  ReferrerListError,
} from './ai-referrers.ts';
import {
  AgentSyncRefused,
  type PreparedList,
  parseListText,
  type SyncResult,
  storeSyncedList,
} from './list-sync.ts';
import { type StoredListVersion, selectLatestVersion } from './list-versions.ts';

export type ReferrerListFormat = 'docwright';
export type PreparedReferrerSync = PreparedList<ReferrerEntry, ReferrerListFormat>;

/** What the curated list answers to, lower case: names, hosts and utm_source values. */
function coveredBy(curated: readonly ReferrerEntry[]) {
  return {
    names: new Set(curated.map((entry) => entry.name.toLowerCase())),
    hosts: new Set(curated.flatMap((entry) => entry.hosts)),
    utmSources: new Set(curated.flatMap((entry) => entry.utmSources.map((utm) => utm.toLowerCase()))),
  };
}

/** The source's assistants, without what the curated list covers. */
export function prepareReferrerSync(
  text: string,
  source: string,
  curated: readonly ReferrerEntry[],
): PreparedReferrerSync {
  const document = parseListText(text, source);
  let listed: ReferrerEntry[];
  try {
    listed = parseReferrerListDocument(document, source);
  } catch (error) {
    if (error instanceof ReferrerListError) throw new AgentSyncRefused(`${error.message}; nothing changed.`);
    throw error;
  }
  if (listed.length === 0)
    throw new AgentSyncRefused(`The list from ${source} holds no assistants; nothing changed.`);
  const covered = coveredBy(curated);
  const entries: ReferrerEntry[] = [];
  const skipped: PreparedReferrerSync['skipped'] = [];
  for (const entry of listed) {
    if (covered.names.has(entry.name.toLowerCase())) {
      skipped.push({ token: entry.name, reason: 'covered by the curated list, which wins' });
      continue;
    }
    const hosts = entry.hosts.filter((host) => !covered.hosts.has(host));
    const utmSources = entry.utmSources.filter((utm) => !covered.utmSources.has(utm.toLowerCase()));
    if (hosts.length === 0 && utmSources.length === 0) {
      skipped.push({
        token: entry.name,
        reason: 'every host and utm_source is covered by the curated list, which wins',
      });
      continue;
    }
    entries.push({ ...entry, hosts, utmSources });
  }
  return { format: 'docwright', entries, skipped };
}

export interface ReferrerSyncOptions {
  /** The list's text, already read from its file or URL (agent-list-source.ts). */
  text: string;
  source: string;
  /** 0..1: the share of stored entries a sync may drop. */
  maxDropShare: number;
  /** The curated list to leave out; defaults to data/ai-referrers.json. */
  curated?: readonly ReferrerEntry[];
}

/** Stores the next version unless it equals the current one; throws AgentSyncRefused. */
export async function syncReferrerList(
  db: Database,
  options: ReferrerSyncOptions,
): Promise<SyncResult<ReferrerListFormat>> {
  const curated = options.curated ?? curatedAiReferrers().entries;
  const prepared = prepareReferrerSync(options.text, options.source, curated);
  return storeSyncedList(db, 'ai_referrer_list_versions', prepared, {
    source: options.source,
    maxDropShare: options.maxDropShare,
    covered: coveredBy(curated).names,
  });
}

/** The synced AI-referrer version in use; null when nothing was ever synced. */
export function selectLatestReferrerList(
  db: Queryable,
): Promise<StoredListVersion<ReferrerEntry, ReferrerListFormat> | null> {
  return selectLatestVersion(db, 'ai_referrer_list_versions');
}
