// One row per agent in use, for `docwright agents list` and the dashboard: what is matched, where
// it came from, and how claims can be verified.

import type { ClassificationContext } from './context.ts';
import type { AgentCategory } from './types.ts';

export interface AgentSummary {
  name: string;
  operator: string;
  category: AgentCategory;
  tokens: string[];
  signatureAgents: string[];
  /** How a claim by this agent can be verified. */
  verifiedBy: ('ip_ranges' | 'web_bot_auth')[];
  ipPrefixes: number;
  rangesPublishedAt: string | null;
  robotsOnly: boolean;
  docs: string;
  /** 'curated' or the path of the extra list it came from. */
  origin: string;
}

export function summariseAgents(context: Pick<ClassificationContext, 'agents'>): AgentSummary[] {
  return context.agents.map((agent) => {
    const verifiedBy: AgentSummary['verifiedBy'] = [];
    if (agent.ranges) verifiedBy.push('ip_ranges');
    if (agent.signatureAgents?.length) verifiedBy.push('web_bot_auth');
    return {
      name: agent.name,
      operator: agent.operator,
      category: agent.category,
      tokens: agent.tokens,
      signatureAgents: agent.signatureAgents ?? [],
      verifiedBy,
      ipPrefixes: agent.ipRanges?.prefixes.length ?? 0,
      rangesPublishedAt: agent.ipRanges?.publishedAt ?? null,
      robotsOnly: agent.robotsOnly ?? false,
      docs: agent.docs,
      origin: agent.origin,
    };
  });
}
