// Everything classification needs besides the record: the agent list (curated first, then any
// extra robots.json lists), the cached user-agent classifier, the Web Bot Auth verifier and a
// clock. Built once per process and shared by every batch.

import { type Agent, DEFAULT_AGENT_LIST_PATH, loadAgentList } from './agent-list.ts';
import { loadRobotsJson, type RobotsJsonLoad } from './robots-json.ts';
import { UserAgentClassifier } from './user-agent-verdict.ts';
import { type WebBotAuthOptions, WebBotAuthVerifier } from './web-bot-auth/verifier.ts';

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
}

export interface ClassificationContextOptions {
  /** The curated list; defaults to data/ai-agents.json. */
  agentListPath?: string;
  /** Agents given directly instead of read from agentListPath (tests). */
  agents?: readonly Agent[];
  /** Paths of extra lists in the ai.robots.txt robots.json format. */
  extraLists?: readonly string[];
  /** Distinct user-agent strings kept in the classification cache. */
  userAgentCacheSize?: number;
  /** Verifier options, a ready verifier, or false to skip Web Bot Auth. */
  webBotAuth?: WebBotAuthOptions | WebBotAuthVerifier | false;
  now?: () => number;
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
  const bySignature = new Map<string, Agent>();
  for (const agent of agents) {
    for (const url of agent.signatureAgents ?? []) {
      const origin = new URL(url).origin;
      if (!bySignature.has(origin)) bySignature.set(origin, agent);
    }
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
    agentsBySignatureOrigin: bySignature,
    webBotAuth,
    now: options.now ?? Date.now,
    skipped,
  };
}
