// The AI-agent export: views per agent, verified and unverified, with operator and category from
// the agent list, read from the agent levels in one snapshot.

import { type AgentReport, DEFAULT_VIEWS_LIMIT } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import type { AgentCatalog } from './agent-catalog.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import {
  beginSnapshotRead,
  hourDaySpanParams,
  mergeStagedViews,
  selectAgentsPage,
  selectAgentTotals,
  splitRange,
} from './store/index.ts';
import type { ViewsRequest } from './views.ts';

export async function exportAgents(
  db: Database,
  projectId: string,
  request: ViewsRequest,
  catalog: AgentCatalog,
): Promise<AgentReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  await mergeStagedViews(db);
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  const spans = hourDaySpanParams(splitRange(range, null));
  const { totals, rows } = await db.transaction(async (tx) => {
    await beginSnapshotRead(tx);
    const totals = await selectAgentTotals(tx, projectId, spans);
    const rows = await selectAgentsPage(tx, projectId, spans, { limit: limit + 1, offset });
    return { totals, rows };
  });
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
    range: reportedRange(range),
  };
}
