// `docwright agents sync` and the server's scheduled sync: a list in the ai.robots.txt
// robots.json format or in docwright's own format becomes the next stored version of the synced
// list (agent_list_versions), which every process picks up (agent-list-refresh.ts). The curated
// list is never stored: each process puts the one shipped with its release in front, and what a
// sync brings is stored without the tokens the curated list already answers to (its names,
// tokens, products, robots.txt names and deliberate notAi decisions), so curated entries keep
// winning on a shared token. A sync that does not parse, or that would drop more than the allowed
// share of the stored entries, is refused and changes nothing.

import type { Database } from '../../../db/database.ts';
import {
  type Agent,
  type AgentEntry,
  type AgentListDocument,
  AgentListError,
  loadAgentListDocument,
  parseAgentListDocument,
} from './agent-list.ts';
import {
  type AgentListFormat,
  insertAgentListVersion,
  type StoredAgentList,
  selectLatestAgentList,
} from './agent-list-queries.ts';
import { curatedNames, parseRobotsJson } from './robots-json.ts';

export class AgentSyncRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentSyncRefused';
  }
}

export interface PreparedSync {
  format: AgentListFormat;
  entries: AgentEntry[];
  skipped: { token: string; reason: string }[];
}

export interface SyncResult {
  /** The version now in use; the previous one when nothing changed. */
  version: number;
  changed: boolean;
  source: string;
  format: AgentListFormat;
  entries: number;
  added: string[];
  removed: string[];
  skipped: { token: string; reason: string }[];
  syncedAt: string;
}

/** What a stored entry keeps: the list's own fields, not the compiled ranges or origin. */
function entryOf(agent: Agent): AgentEntry {
  const { origin: _origin, ranges: _ranges, ...entry } = agent;
  return entry;
}

/** JSON with object keys sorted: jsonb gives keys back in its own order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

function parseDocument(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AgentSyncRefused(
      `The list from ${source} is not JSON (${(error as Error).message}); nothing changed.`,
    );
  }
}

/** The source's entries in docwright's format, without what the curated list covers. */
export function prepareSync(text: string, source: string, curated: AgentListDocument): PreparedSync {
  const document = parseDocument(text, source);
  const isOwnFormat =
    typeof document === 'object' &&
    document !== null &&
    Array.isArray((document as { agents?: unknown }).agents);
  let agents: Agent[];
  const skipped: PreparedSync['skipped'] = [];
  try {
    if (isOwnFormat) {
      agents = parseAgentListDocument(document, source, source).agents;
    } else {
      const load = parseRobotsJson(document, source);
      agents = load.agents;
      skipped.push(...load.skipped);
    }
  } catch (error) {
    if (error instanceof AgentListError) throw new AgentSyncRefused(`${error.message}; nothing changed.`);
    throw error;
  }
  const covered = curatedNames(curated.agents, curated.notAi);
  const entries: AgentEntry[] = [];
  const names = new Set<string>();
  for (const agent of agents) {
    if (covered.has(agent.name.toLowerCase())) {
      skipped.push({ token: agent.name, reason: 'covered by the curated list, which wins' });
      continue;
    }
    if (names.has(agent.name.toLowerCase())) continue;
    const tokens = agent.tokens.filter((token) => !covered.has(token.toLowerCase()));
    const products = (agent.products ?? []).filter((product) => !covered.has(product.toLowerCase()));
    if (tokens.length === 0 && products.length === 0 && !agent.signatureAgents?.length) {
      skipped.push({ token: agent.name, reason: 'every token is covered by the curated list, which wins' });
      continue;
    }
    names.add(agent.name.toLowerCase());
    entries.push({ ...entryOf(agent), tokens, ...(agent.products ? { products } : {}) });
  }
  if (entries.length === 0 && agents.length === 0) {
    throw new AgentSyncRefused(`The list from ${source} holds no agents; nothing changed.`);
  }
  return { format: isOwnFormat ? 'docwright' : 'robots_json', entries, skipped };
}

/**
 * Refuses a sync that would drop more than maxDropShare (0..1) of the stored entries. Entries the
 * curated list now covers (a release added them) are not dropped: they are still matched.
 */
export function checkDrop(
  previous: Pick<StoredAgentList, 'entries'> | null,
  next: readonly AgentEntry[],
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

export interface SyncOptions {
  /** The list's text, already read from its file or URL. */
  text: string;
  source: string;
  /** 0..1: the share of stored entries a sync may drop. */
  maxDropShare: number;
  /** The curated list to leave out; defaults to data/ai-agents.json. */
  curated?: AgentListDocument;
}

/** Stores the next version unless it equals the current one; throws AgentSyncRefused. */
export async function syncAgentList(db: Database, options: SyncOptions): Promise<SyncResult> {
  const curated = options.curated ?? loadAgentListDocument();
  const prepared = prepareSync(options.text, options.source, curated);
  const covered = curatedNames(curated.agents, curated.notAi);
  return db.transaction(async (tx) => {
    const previous = await selectLatestAgentList(tx);
    checkDrop(previous, prepared.entries, options.maxDropShare, options.source, covered);
    const before = new Set((previous?.entries ?? []).map((entry) => entry.name));
    const after = new Set(prepared.entries.map((entry) => entry.name));
    const added = [...after].filter((name) => !before.has(name));
    const removed = [...before].filter((name) => !after.has(name));
    const base = {
      source: options.source,
      format: prepared.format,
      entries: prepared.entries.length,
      added,
      removed,
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
    const stored = await insertAgentListVersion(tx, { ...prepared, source: options.source });
    return { ...base, version: stored.version, changed: true, syncedAt: stored.syncedAt.toISOString() };
  });
}
