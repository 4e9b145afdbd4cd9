// Crawls against referrals per operator (the /agents export's operators): the AI views of each
// operator's agents next to the human views its assistants referred, as CDN dashboards show
// "crawl-to-referral". Operators come from the agent catalog and data/ai-referrers.json.
import type { AgentCatalog } from './agent-catalog.ts';
import { type AiReferrers, curatedAiReferrers } from './classification/ai-referrers.ts';

export interface OperatorTraffic {
  operator: string;
  crawls: number;
  referrals: number;
}

export function crawlsAndReferrals(
  agents: readonly { agent: string; total: number }[],
  referred: readonly { assistant: string; views: number }[],
  catalog: AgentCatalog,
  referrers: AiReferrers = curatedAiReferrers(),
): OperatorTraffic[] {
  const byOperator = new Map<string, OperatorTraffic>();
  const entry = (operator: string) => {
    let found = byOperator.get(operator);
    if (found === undefined) {
      found = { operator, crawls: 0, referrals: 0 };
      byOperator.set(operator, found);
    }
    return found;
  };
  for (const agent of agents) {
    const operator = catalog(agent.agent).operator;
    if (operator !== null) entry(operator).crawls += Number(agent.total);
  }
  for (const row of referred) {
    const operator = referrers.assistants.get(row.assistant)?.operator;
    if (operator !== undefined) entry(operator).referrals += row.views;
  }
  return [...byOperator.values()].sort(
    (a, b) =>
      b.crawls - a.crawls ||
      b.referrals - a.referrals ||
      (a.operator < b.operator ? -1 : a.operator > b.operator ? 1 : 0),
  );
}
