// The class of an MCP call (an ingest record of type mcp). A call to a docs site's MCP server is
// made by an AI client, so it counts as AI: under the listed agent its user agent names (and
// verifies, as any view), else as `mcp-client`. The one exception is a browser user agent that
// names no agent, which the pipeline classifies human: kept human, as a person trying the server
// from a web page. Bots, an empty user agent and HTTP libraries (most MCP clients send one) are
// the MCP client itself, not a crawler.
import type { ClassificationContext } from './context.ts';
import type { ClassificationOutcome, ClassifiedView } from './types.ts';
import { isDropped } from './types.ts';

/** The agent name MCP calls from clients no agent-list entry names are counted under. */
export const MCP_CLIENT = 'mcp-client';

export function mcpCallOutcome(
  outcome: ClassificationOutcome,
  userAgent: string | undefined,
  context: ClassificationContext,
): ClassificationOutcome {
  if (isDropped(outcome) || outcome.class === 'ai') return outcome;
  if (outcome.class === 'human' && context.userAgents.classify(userAgent).browser) return outcome;
  const view: ClassifiedView = {
    path: outcome.path,
    markdown: outcome.markdown,
    class: 'ai',
    agent: MCP_CLIENT,
    category: 'other_ai',
    verification: 'unverified',
    evidence: { rule: 'mcp_client' },
  };
  return view;
}
