// The AI-agent export: views per agent, verified and unverified, with operator and category from
// the agent list, read through the store.

import { type AgentReport, DEFAULT_VIEWS_LIMIT } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import type { AgentCatalog } from './agent-catalog.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { crawlsAndReferrals } from './operators.ts';
import { readAgentPage } from './store/index.ts';
import type { ViewsRequest } from './views.ts';

export async function exportAgents(
  db: Database,
  projectId: string,
  request: ViewsRequest,
  catalog: AgentCatalog,
): Promise<AgentReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  const read = await readAgentPage(db, projectId, range, { limit: limit + 1, offset });
  const { totals, rows } = read;
  const operators = crawlsAndReferrals(read.everyAgent, read.referred, catalog);
  return {
    totals,
    agents: rows.slice(0, limit).map((row) => ({
      agent: row.agent,
      ...catalog(row.agent),
      verified: row.verified,
      unverified: row.unverified,
      total: row.total,
    })),
    hasMore: rows.length > limit,
    operators,
    range: reportedRange(range),
  };
}
