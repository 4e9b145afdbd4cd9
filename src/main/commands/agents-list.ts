// The AI-agent list in use, for `docwright agents list`: the curated list, then the extra lists
// named by DOCWRIGHT_EXTRA_AGENT_LISTS, then the synced version stored in the database, exactly
// as classification loads them.
import { ConfigError } from '../../config/config.ts';
import type { AgentCategory } from '../../modules/analytics/index.ts';
import {
  AgentListError,
  type AgentListVersion,
  type ClassificationContext,
  createClassificationContext,
  summariseAgents,
} from '../../modules/analytics/index.ts';

export interface AgentListRow {
  name: string;
  operator: string;
  category: AgentCategory;
  /** How a claim by this agent is verified; empty: only the user agent's word. */
  verifiedBy: ('ip_ranges' | 'web_bot_auth')[];
  ipRangesPublished: boolean;
  ipPrefixes: number;
  rangesPublishedAt: string | null;
  signatureAgents: string[];
  tokens: string[];
  /** Listed for robots.txt only: it fetches, but has no user agent of its own to count. */
  robotsOnly: boolean;
  /** 'curated' (data/ai-agents.json), the path of the extra list, or "sync v<N> (<source>)". */
  source: string;
  docs: string;
}

export interface AgentListing {
  /** The synced version in use; null when none was ever synced. */
  list: AgentListVersion | null;
  agents: AgentListRow[];
  /** Entries of extra lists that are not matched, and why. */
  skipped: { token: string; reason: string }[];
}

/**
 * The classification context with the operator's extra lists; a broken list is a configuration
 * problem (exit 1 with its message), not a bug. The CLI reads logs, which carry no signatures,
 * so it leaves Web Bot Auth out; the server keeps it.
 */
export function classificationWithExtraLists(
  extraLists: readonly string[],
  options: { webBotAuth?: false } = {},
): ClassificationContext {
  try {
    return createClassificationContext({ extraLists, ...options });
  } catch (error) {
    if (error instanceof AgentListError) throw new ConfigError([error.message]);
    throw error;
  }
}

export function listAgents(context: ClassificationContext): AgentListing {
  return {
    list: context.agentList,
    agents: summariseAgents(context).map((a) => ({
      name: a.name,
      operator: a.operator,
      category: a.category,
      verifiedBy: a.verifiedBy,
      ipRangesPublished: a.verifiedBy.includes('ip_ranges'),
      ipPrefixes: a.ipPrefixes,
      rangesPublishedAt: a.rangesPublishedAt,
      signatureAgents: a.signatureAgents,
      tokens: a.tokens,
      robotsOnly: a.robotsOnly,
      source: a.origin,
      docs: a.docs,
    })),
    skipped: [...context.skipped],
  };
}
