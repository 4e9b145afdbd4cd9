// Who operates an AI agent and what kind it is, by the name stored with its views. The rollups
// keep only the name; operator and category come from the agent list in use (data/ai-agents.json,
// plus any extra lists the server loads), so a corrected entry shows at once in every export.
import { type Agent, DEFAULT_AGENT_LIST_PATH, loadAgentList } from './classification/agent-list.ts';
import type { ClassificationContext } from './classification/context.ts';
import { MCP_CLIENT } from './classification/mcp-call.ts';
import { MARKDOWN_CLIENT } from './classification/steps/user-agent.ts';
import type { AgentCategory } from './classification/types.ts';

export interface AgentDescription {
  operator: string | null;
  category: AgentCategory | null;
}

export type AgentCatalog = (agent: string) => AgentDescription;

const UNKNOWN: AgentDescription = { operator: null, category: null };

/**
 * A catalog over these agents; the first entry of a name wins, as in classification. An agent no
 * longer in the list (an extra list since removed) has null operator and category.
 */
export function agentCatalog(agents: readonly Pick<Agent, 'name' | 'operator' | 'category'>[]): AgentCatalog {
  const byName = new Map<string, AgentDescription>();
  // Markdown fetches by unnamed clients are counted as AI under this name (classification).
  byName.set(MARKDOWN_CLIENT, { operator: null, category: 'other_ai' });
  // MCP calls from clients no list entry names, likewise.
  byName.set(MCP_CLIENT, { operator: null, category: 'other_ai' });
  for (const agent of agents) {
    if (!byName.has(agent.name))
      byName.set(agent.name, { operator: agent.operator, category: agent.category });
  }
  return (agent) => byName.get(agent) ?? UNKNOWN;
}

/**
 * A catalog that follows a classification context's agent list: rebuilt when a synced version
 * replaces the list, so exports name the operator and category of agents added by a sync.
 */
export function liveAgentCatalog(
  context: Pick<ClassificationContext, 'agents' | 'generation'>,
): AgentCatalog {
  let generation = -1;
  let current: AgentCatalog = () => UNKNOWN;
  return (agent) => {
    if (generation !== context.generation) {
      current = agentCatalog(context.agents);
      generation = context.generation;
    }
    return current(agent);
  };
}

let curated: AgentCatalog | undefined;

/** The catalog of the curated list, loaded once. */
export function curatedAgentCatalog(): AgentCatalog {
  curated ??= agentCatalog(loadAgentList(DEFAULT_AGENT_LIST_PATH));
  return curated;
}
