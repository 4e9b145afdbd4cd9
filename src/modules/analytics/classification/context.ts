// Everything classification needs besides the record: the agent list (curated first, then any
// extra robots.json lists, then the synced list stored in the database), the cached user-agent
// classifier, the Web Bot Auth verifier and a clock. Built once per process and shared by every
// batch. When a new synced version arrives (agent-list-refresh.ts), useSyncedAgents swaps the
// list and everything compiled from it at once and bumps `generation`, which the caches built
// from the list (user-agent-profiles.ts, agent-catalog.ts) compare to drop what they hold.

import { type Agent, DEFAULT_AGENT_LIST_PATH, loadAgentList, toAgents } from './agent-list.ts';
import type { StoredAgentList } from './agent-list-queries.ts';
import { AiReferrers, curatedAiReferrers, type ReferrerEntry } from './ai-referrers.ts';
import type { StoredListVersion } from './list-versions.ts';
import { loadRobotsJson, type RobotsJsonLoad } from './robots-json.ts';
import { UserAgentClassifier } from './user-agent-verdict.ts';
import { type WebBotAuthOptions, WebBotAuthVerifier } from './web-bot-auth/verifier.ts';

/** The synced version in use. */
export interface AgentListVersion {
  version: number;
  source: string;
  syncedAt: string;
  /** Entries the synced version adds to the curated and extra lists. */
  entries: number;
}

export interface ClassificationContext {
  agents: readonly Agent[];
  userAgents: UserAgentClassifier;
  /** Curated agents by the origin of the Signature-Agent they sign with. */
  agentsBySignatureOrigin: ReadonlyMap<string, Agent>;
  webBotAuth: WebBotAuthVerifier | null;
  /** Milliseconds since the epoch; the time of records that carry none. */
  now: () => number;
  /** Tokens of extra lists that were not loaded, and why. */
  skipped: RobotsJsonLoad['skipped'];
  /** Bumped each time the agent list changes; caches built from the list compare it. */
  generation: number;
  /** The synced version in use; null while only the curated and extra lists are. */
  agentList: AgentListVersion | null;
  /** AI assistants whose answers send readers: the curated list, then the synced one. */
  referrers: AiReferrers;
  /** The synced AI-referrer version in use; null while only the curated list is. */
  referrerList: AgentListVersion | null;
  /** The curated and extra lists, which a synced version is added to. */
  readonly baseAgents: readonly Agent[];
  readonly userAgentCacheSize: number | undefined;
}

export interface ClassificationContextOptions {
  /** The curated list; defaults to data/ai-agents.json. */
  agentListPath?: string;
  /** Agents given directly instead of read from agentListPath (tests). */
  agents?: readonly Agent[];
  /** The curated AI-referrer list; defaults to data/ai-referrers.json. */
  referrers?: AiReferrers;
  /** Paths of extra lists in the ai.robots.txt robots.json format. */
  extraLists?: readonly string[];
  /** Distinct user-agent strings kept in the classification cache. */
  userAgentCacheSize?: number;
  /** Verifier options, a ready verifier, or false to skip Web Bot Auth. */
  webBotAuth?: WebBotAuthOptions | WebBotAuthVerifier | false;
  now?: () => number;
}

function bySignatureOrigin(agents: readonly Agent[]): Map<string, Agent> {
  const bySignature = new Map<string, Agent>();
  for (const agent of agents) {
    for (const url of agent.signatureAgents ?? []) {
      const origin = new URL(url).origin;
      if (!bySignature.has(origin)) bySignature.set(origin, agent);
    }
  }
  return bySignature;
}

export function createClassificationContext(
  options: ClassificationContextOptions = {},
): ClassificationContext {
  const agents: Agent[] = [
    ...(options.agents ?? loadAgentList(options.agentListPath ?? DEFAULT_AGENT_LIST_PATH)),
  ];
  const skipped: RobotsJsonLoad['skipped'] = [];
  for (const path of options.extraLists ?? []) {
    const extra = loadRobotsJson(path);
    agents.push(...extra.agents);
    skipped.push(...extra.skipped);
  }
  const webBotAuth =
    options.webBotAuth === false
      ? null
      : options.webBotAuth instanceof WebBotAuthVerifier
        ? options.webBotAuth
        : new WebBotAuthVerifier(options.webBotAuth ?? {});
  return {
    agents,
    userAgents: new UserAgentClassifier(agents, options.userAgentCacheSize),
    agentsBySignatureOrigin: bySignatureOrigin(agents),
    webBotAuth,
    now: options.now ?? Date.now,
    skipped,
    generation: 0,
    agentList: null,
    referrers: options.referrers ?? curatedAiReferrers(),
    referrerList: null,
    baseAgents: agents,
    userAgentCacheSize: options.userAgentCacheSize,
  };
}

/**
 * Puts a stored synced version behind the curated and extra lists (which win on a shared token,
 * being matched first) and replaces everything compiled from the list in one step, so a record
 * is classified wholly by the old list or wholly by the new one.
 */
export function useSyncedAgents(context: ClassificationContext, stored: StoredAgentList): void {
  // A version synced before a release added the same agent to the curated list: the curated
  // entry alone is listed (its tokens win anyway).
  const listed = new Set(context.baseAgents.map((agent) => agent.name.toLowerCase()));
  const synced = stored.entries.filter((entry) => !listed.has(entry.name.toLowerCase()));
  const agents = [...context.baseAgents, ...toAgents(synced, `sync v${stored.version} (${stored.source})`)];
  const userAgents = new UserAgentClassifier(agents, context.userAgentCacheSize);
  context.agents = agents;
  context.userAgents = userAgents;
  context.agentsBySignatureOrigin = bySignatureOrigin(agents);
  context.agentList = {
    version: stored.version,
    source: stored.source,
    syncedAt: stored.syncedAt.toISOString(),
    entries: stored.entries.length,
  };
  context.generation++;
}

/**
 * Puts a stored synced AI-referrer version behind the curated list, in one step. Entries the
 * curated list gained since the sync (a release added the assistant) are left to it.
 */
export function useSyncedReferrers(
  context: ClassificationContext,
  stored: StoredListVersion<ReferrerEntry, string>,
): void {
  const curated = context.referrers.curated;
  const names = new Set(curated.map((entry) => entry.name.toLowerCase()));
  const hosts = new Set(curated.flatMap((entry) => entry.hosts));
  const utms = new Set(curated.flatMap((entry) => entry.utmSources.map((utm) => utm.toLowerCase())));
  const synced = stored.entries
    .filter((entry) => !names.has(entry.name.toLowerCase()))
    .map((entry) => ({
      ...entry,
      hosts: entry.hosts.filter((host) => !hosts.has(host)),
      utmSources: entry.utmSources.filter((utm) => !utms.has(utm.toLowerCase())),
    }))
    .filter((entry) => entry.hosts.length > 0 || entry.utmSources.length > 0);
  context.referrers = new AiReferrers([...curated, ...synced], curated);
  context.referrerList = {
    version: stored.version,
    source: stored.source,
    syncedAt: stored.syncedAt.toISOString(),
    entries: stored.entries.length,
  };
}
