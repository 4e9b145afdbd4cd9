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
import type { AgentListFormat } from './agent-list-queries.ts';
import {
  AgentSyncRefused,
  checkDrop,
  type PreparedList,
  parseListText,
  type SyncResult,
  storeSyncedList,
} from './list-sync.ts';
import { curatedNames, parseRobotsJson } from './robots-json.ts';

export { AgentSyncRefused, checkDrop, type SyncResult };

export type PreparedSync = PreparedList<AgentEntry, AgentListFormat>;

/** What a stored entry keeps: the list's own fields, not the compiled ranges or origin. */
function entryOf(agent: Agent): AgentEntry {
  const { origin: _origin, ranges: _ranges, ...entry } = agent;
  return entry;
}

/** The source's entries in docwright's format, without what the curated list covers. */
export function prepareSync(text: string, source: string, curated: AgentListDocument): PreparedSync {
  const document = parseListText(text, source);
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
export async function syncAgentList(
  db: Database,
  options: SyncOptions,
): Promise<SyncResult<AgentListFormat>> {
  const curated = options.curated ?? loadAgentListDocument();
  const prepared = prepareSync(options.text, options.source, curated);
  return storeSyncedList(db, 'agent_list_versions', prepared, {
    source: options.source,
    maxDropShare: options.maxDropShare,
    covered: curatedNames(curated.agents, curated.notAi),
  });
}
